// Pairing by code between real installs (dist/server.mjs processes on loopback): a home, and
// installs asking it to pair. Both sides show the same six digits; right codes typed in
// either order add the member (unlicensed until approved); one wrong code on either side ends
// the request, three close the window; a cancel reaches the home; the nonces the codes come
// from never reach a ledger; a joiner cannot give a second nonce once it saw the home's.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../testing/processes.js';
import {
  call,
  craftedSite,
  hello,
  ledgerText,
  send,
  startInstall,
  stopAll,
  waitFor,
  type Install,
  type Json,
} from '../testing/keychain/installs.js';
import { signRequest } from './crypto/peer-signature.js';

requireBundle();

afterAll(async () => {
  await stopAll();
});

/** The nonces an install keeps for pairing (read from its file: the table is this domain's). */
function nonces(i: Install): string[] {
  const db = new Database(join(i.dir, 'data', 'svc.db'), { readonly: true });
  try {
    return (
      db.prepare('SELECT home_nonce, joiner_nonce FROM keychain_pairing').all() as {
        home_nonce: string | null;
        joiner_nonce: string | null;
      }[]
    ).flatMap((r) => [r.home_nonce, r.joiner_nonce].filter((n): n is string => n !== null));
  } finally {
    db.close();
  }
}

type Joining = {
  request_id: string;
  state: string;
  code: string | null;
  home: Json;
  confirmed: boolean;
};
type Request = { request_id: string; fingerprint: string; state: string; code: string | null; home_confirmed: boolean; joiner_confirmed: boolean }; // prettier-ignore

const joining = async (i: Install) =>
  (await call(i, 'GET', '/v1/keychain')).body['joining'] as Joining | null;

async function requestOf(home: Install, requestId: string): Promise<Request> {
  const pairing = (await call(home, 'GET', '/v1/keychain')).body['pairing'] as {
    requests: Request[];
  };
  const r = pairing.requests.find((x) => x.request_id === requestId);
  if (r === undefined) throw new Error(`the home shows no request ${requestId}`);
  return r;
}

/** A code that is not `code`. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('pairing with a six-digit code', () => {
  let a: Install;
  let b: Install;
  let c: Install;
  let d: Install;
  let aFp: string;

  beforeAll(async () => {
    [a, b, c, d] = await Promise.all([
      startInstall('pair-a', 'b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1'),
      startInstall('pair-b', 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2'),
      startInstall('pair-c', 'b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3b3'),
      startInstall('pair-d', 'b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4'),
    ]);
    const home = await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' });
    expect(home.status).toBe(200);
    aFp = String(home.body['fingerprint']);
  }, 90_000);

  it('is refused while the home has no pairing window open', async () => {
    const refused = await call(b, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC B' });
    expect(refused.status).toBe(409);
    expect(refused.body['error']).toBe('window_closed');
    expect(String(refused.body['message'])).toContain('POST /v1/keychain/window');
    expect(await joining(b)).toBeNull();
    // A body that names no home is a 400 naming the field, and changes nothing.
    const bad = await call(b, 'POST', '/v1/keychain/join', { address: 'ftp://x', label: 'DC B' });
    expect(bad.status).toBe(400);
    expect(bad.body['field']).toBe('address');
  });

  it('shows the same six digits on both sides; right codes, home first, add the member', async () => {
    const opened = await call(a, 'POST', '/v1/keychain/window');
    expect(opened.status).toBe(200);
    expect(opened.body['pairing']).toMatchObject({ window: { open: true } });

    const asked = await call(b, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC B' });
    expect(asked.status).toBe(200);
    const mine = asked.body['joining'] as Joining;
    expect(mine.code).toMatch(/^\d{6}$/);
    expect(mine.home).toMatchObject({ fingerprint: aFp, label: 'DC A' });
    expect(asked.body['role']).toBe('none');

    const theirs = await requestOf(a, mine.request_id);
    expect(theirs).toMatchObject({ fingerprint: asked.body['fingerprint'], state: 'open' });
    expect(theirs.code).toBe(mine.code);

    const homeSide = await call(a, 'POST', '/v1/keychain/members/confirm', {
      fingerprint: asked.body['fingerprint'],
      code: mine.code,
    });
    expect(homeSide.status).toBe(200);
    expect(await requestOf(a, mine.request_id)).toMatchObject({
      home_confirmed: true,
      state: 'open',
    });

    const joinerSide = await call(b, 'POST', '/v1/keychain/join/confirm', { code: theirs.code });
    expect(joinerSide.status).toBe(200);
    expect(joinerSide.body).toMatchObject({ role: 'member', home_fp: aFp, label: 'DC B' });
    expect(joinerSide.body['joining']).toMatchObject({ state: 'added', code: null });

    const roster = (await call(a, 'GET', '/v1/keychain')).body['members'] as Json[];
    expect(roster.find((m) => m['fingerprint'] === asked.body['fingerprint'])).toMatchObject({
      label: 'DC B',
      via: `pairing:${mine.request_id}`,
      licensed: false,
    });
    // The member pulls like any other: its home hears it.
    const pulled = await call(b, 'POST', '/v1/keychain/pull');
    expect(pulled.status).toBe(200);
  }, 60_000);

  it('adds a joiner that confirmed first once the home confirms (the joiner asks until then)', async () => {
    const asked = await call(c, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC C' });
    expect(asked.status).toBe(200);
    const mine = asked.body['joining'] as Joining;
    const theirs = await requestOf(a, mine.request_id);
    const first = await call(c, 'POST', '/v1/keychain/join/confirm', { code: theirs.code });
    expect(first.status).toBe(200);
    expect(first.body['role']).toBe('none');
    expect(first.body['joining']).toMatchObject({ state: 'open', confirmed: true });
    expect(await requestOf(a, mine.request_id)).toMatchObject({ joiner_confirmed: true });

    await call(a, 'POST', '/v1/keychain/members/confirm', {
      fingerprint: asked.body['fingerprint'],
      code: mine.code,
    });
    await waitFor('C a member', async () =>
      (await call(c, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null,
    );
  }, 60_000);

  it('ends a request at one wrong code on either side, and closes the window at the third', async () => {
    // Typed wrong on the joiner: both sides end the request.
    const one = (await call(d, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC D' }))
      .body['joining'] as Joining;
    const homeCode = (await requestOf(a, one.request_id)).code ?? '';
    const miss = await call(d, 'POST', '/v1/keychain/join/confirm', { code: wrong(homeCode) });
    expect(miss.status).toBe(409);
    expect(miss.body['error']).toBe('code_mismatch');
    expect(await joining(d)).toMatchObject({ state: 'failed', code: null });
    expect(await requestOf(a, one.request_id)).toMatchObject({ state: 'failed', code: null });
    // The right code cannot revive it.
    const late = await call(d, 'POST', '/v1/keychain/join/confirm', { code: homeCode });
    expect(late.status).toBe(409);
    expect(late.body['error']).toBe('not_pairing');

    // A new request has fresh nonces, so a new code (almost surely); typed wrong on the home.
    const two = (await call(d, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC D' }))
      .body['joining'] as Joining;
    expect(two.request_id).not.toBe(one.request_id);
    const dFp = String((await call(d, 'GET', '/v1/keychain')).body['fingerprint']);
    const homeMiss = await call(a, 'POST', '/v1/keychain/members/confirm', {
      fingerprint: dFp,
      code: wrong(two.code ?? ''),
    });
    expect(homeMiss.status).toBe(409);
    expect(homeMiss.body['error']).toBe('code_mismatch');
    await waitFor('D told its request failed', async () =>
      (await joining(d))?.state === 'failed' ? true : null,
    );

    // A cancel on the joiner reaches the home and does not count against the window.
    const three = (await call(d, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC D' }))
      .body['joining'] as Joining;
    const cancelled = await call(d, 'POST', '/v1/keychain/join/cancel');
    expect(cancelled.body['joining']).toMatchObject({ state: 'cancelled' });
    expect(await requestOf(a, three.request_id)).toMatchObject({ state: 'cancelled' });

    // The third wrong code closes the window: nobody else can ask until it is opened again.
    const four = (await call(d, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC D' }))
      .body['joining'] as Joining;
    await call(a, 'POST', '/v1/keychain/members/confirm', {
      fingerprint: dFp,
      code: wrong(four.code ?? ''),
    });
    const view = await call(a, 'GET', '/v1/keychain');
    expect(view.body['pairing']).toMatchObject({ window: { open: false } });
    const closed = await call(d, 'POST', '/v1/keychain/join', { address: a.url, label: 'DC D' });
    expect(closed.status).toBe(409);
    expect(closed.body['error']).toBe('window_closed');

    const ledger = await ledgerText(a);
    expect(ledger.match(/keychain\.join_code_failed/g)).toHaveLength(3);
    expect(ledger).toContain('keychain.window_closed');
    expect(ledger).toContain('keychain.join_cancelled');
  }, 90_000);

  it('gives a paired member a licence seat only when approved', async () => {
    const before = (await call(a, 'GET', '/v1/status')).body['licence'] as Json;
    const roster = (await call(a, 'GET', '/v1/keychain')).body['members'] as Json[];
    const bEntry = roster.find((m) => m['label'] === 'DC B');
    const request = String(bEntry?.['via']).replace('pairing:', '');

    const unknown = await call(a, 'POST', '/v1/keychain/joins/approve', { request: 'pr_nosuch' });
    expect(unknown.status).toBe(404);
    expect(unknown.body['field']).toBe('request');
    const fromMember = await call(b, 'POST', '/v1/keychain/joins/approve', { request });
    expect(fromMember.status).toBe(409);

    const approved = await call(a, 'POST', '/v1/keychain/joins/approve', { request });
    expect(approved.status).toBe(200);
    const after = (approved.body['members'] as Json[]).find((m) => m['label'] === 'DC B');
    expect(after?.['licensed']).toBe(true);
    const status = (await call(a, 'GET', '/v1/status')).body['licence'] as Json;
    expect(Number(status['installs'])).toBe(Number(before['installs']) + 1);
    // Approving again changes nothing.
    await call(a, 'POST', '/v1/keychain/joins/approve', { request });
    const again = (await call(a, 'GET', '/v1/status')).body['licence'] as Json;
    expect(again['installs']).toBe(status['installs']);
    expect(await ledgerText(a)).toContain('keychain.join_approved');
  });

  it('keeps the nonces and codes out of every ledger', async () => {
    const kept = [...nonces(a), ...nonces(b), ...nonces(c), ...nonces(d)];
    expect(kept.length).toBeGreaterThan(8);
    for (const i of [a, b, c, d]) {
      const text = await ledgerText(i);
      for (const n of kept) expect(text).not.toContain(n);
    }
  });

  it('takes one nonce per request: a joiner cannot try again once it saw the home’s', async () => {
    await call(a, 'POST', '/v1/keychain/window');
    const h = await hello(a);
    const site = craftedSite();
    const signed = (path: string, payload: unknown) => {
      const body = Buffer.from(JSON.stringify(payload));
      return {
        body,
        headers: signRequest({
          method: 'POST',
          path,
          query: '',
          body,
          keychainId: h.keychain_id,
          from: site.fp,
          to: h.home_fp,
          epoch: 0,
          head: '',
          key: site.sigKey,
          keyid: site.fp,
          now: Date.now(),
        }),
      };
    };
    const made = await send(
      a,
      '/v1/keychain/peer/join/hello',
      signed('/v1/keychain/peer/join/hello', {
        sig_pub: site.sigPub,
        kx_pub: site.kxPub,
        label: 'x',
      }),
    );
    expect(made.status).toBe(200);
    const requestId = String(made.body['request_id']);
    expect(String(made.body['commit'])).toMatch(/^[0-9a-f]{64}$/);
    const first = await send(
      a,
      '/v1/keychain/peer/join/nonce',
      signed('/v1/keychain/peer/join/nonce', {
        request_id: requestId,
        joiner_nonce: 'a'.repeat(64),
      }),
    );
    expect(first.status).toBe(200);
    expect(String(first.body['home_nonce'])).toMatch(/^[0-9a-f]{64}$/);
    const second = await send(
      a,
      '/v1/keychain/peer/join/nonce',
      signed('/v1/keychain/peer/join/nonce', {
        request_id: requestId,
        joiner_nonce: 'b'.repeat(64),
      }),
    );
    expect(second.status).toBe(409);
    expect(second.body['error']).toBe('nonce_given');
    // Someone else's key cannot speak for the request.
    const other = craftedSite();
    const body = Buffer.from(JSON.stringify({ request_id: requestId, reason: 'cancelled' }));
    const stranger = await send(a, '/v1/keychain/peer/join/abort', {
      body,
      headers: signRequest({
        method: 'POST',
        path: '/v1/keychain/peer/join/abort',
        query: '',
        body,
        keychainId: h.keychain_id,
        from: other.fp,
        to: h.home_fp,
        epoch: 0,
        head: '',
        key: other.sigKey,
        keyid: other.fp,
        now: Date.now(),
      }),
    });
    expect(stranger.status).toBe(401);
    expect(await requestOf(a, requestId)).toMatchObject({ state: 'open' });

    // Asking again and again (cancelling each) to fish for a code: ten requests a window.
    const ask = async () => {
      const s = craftedSite();
      const body = Buffer.from(JSON.stringify({ sig_pub: s.sigPub, kx_pub: s.kxPub, label: 'x' }));
      const headers = signRequest({
        method: 'POST',
        path: '/v1/keychain/peer/join/hello',
        query: '',
        body,
        keychainId: h.keychain_id,
        from: s.fp,
        to: h.home_fp,
        epoch: 0,
        head: '',
        key: s.sigKey,
        keyid: s.fp,
        now: Date.now(),
      });
      const made = await send(a, '/v1/keychain/peer/join/hello', { body, headers });
      if (made.status !== 200) return made;
      const abortBody = Buffer.from(
        JSON.stringify({ request_id: made.body['request_id'], reason: 'cancelled' }),
      );
      const aborted = await send(a, '/v1/keychain/peer/join/abort', {
        body: abortBody,
        headers: signRequest({
          method: 'POST',
          path: '/v1/keychain/peer/join/abort',
          query: '',
          body: abortBody,
          keychainId: h.keychain_id,
          from: s.fp,
          to: h.home_fp,
          epoch: 0,
          head: '',
          key: s.sigKey,
          keyid: s.fp,
          now: Date.now(),
        }),
      });
      expect(aborted.status).toBe(200);
      return made;
    };
    // This window holds one request already (above): nine more, then refused.
    for (let i = 0; i < 9; i += 1) expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(409);
    expect(refused.body['error']).toBe('window_full');
  });
});
