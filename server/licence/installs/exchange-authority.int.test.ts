// The exchange with the licence authority online (licence.md §3.7, cases 43 and 44), through
// two real servers and the real HTTPS test authority (e2e/authority/authority.ts): E online
// hands a vouched request to the authority, which adds N to the next serial at once while a
// seat is free, or holds it until the vendor approves (then E's next check brings the serial
// and N's poll installs it); an authority that cannot be reached leaves E deciding offline;
// a forward bundle from an offline E, uploaded by hand, comes back as a licence for both.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuthority, type TestAuthority } from '../../../e2e/authority/authority.js';
import { freePort } from '../../../e2e/lab/processes.js';
import {
  createTestIssuer,
  licencePayload,
  productionInstall,
} from '../../testing/licence/issuer.js';
import { buildTestServer, type TestServer } from '../../testing/test-server.js';
import {
  adminCall,
  E_FP,
  hostWith,
  N_FP,
  N_MACHINE,
  type Json,
} from '../../testing/licence/two-installs.js';
import { postToAuthority } from '../authority-transport.js';
import type { LicencePayload } from '../document/licence-doc.js';
import { installPubOf } from './install-pub.js';

let authority: TestAuthority;
beforeAll(async () => {
  authority = await startTestAuthority();
});
afterAll(async () => {
  await authority.close();
});
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.cleanup();
});

const call = adminCall;
const serialOf = async (s: TestServer) =>
  (
    (await call(s, 'GET', '/v1/licence/installs')).body['installs'] as { fingerprint: string }[]
  ).map((i) => i.fingerprint);

/** E under a licence the authority issued (listing E's real key), and N, both online. */
async function pair(
  env: Record<string, string> = {},
  over: Partial<LicencePayload> = {},
  own: { e?: Record<string, string>; n?: Record<string, string> } = {},
) {
  const online = {
    SVC_TRIAL: '0',
    SVC_AUTHORITY_URL: authority.url,
    SVC_CA_BUNDLE: authority.caBundle,
    ...env,
  };
  const e = await buildTestServer({ env: { ...online, ...own.e } });
  servers.push(e);
  const nDir = hostWith(N_MACHINE);
  const n = await buildTestServer({ env: { ...online, ...own.n }, dir: nDir });
  servers.push(n);
  const key = e.runtime.keyFor('ed25519');
  if (key === null) throw new Error('no install key on E');
  const { payload, envelope } = authority.issue({
    installs: [
      productionInstall(E_FP, new Date().toISOString(), { install_pub: installPubOf(key) }),
    ],
    ...over,
  });
  const r = await call(e, 'POST', '/v1/licence', { licence: JSON.stringify(envelope) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { e, n, payload };
}

async function ask(n: TestServer) {
  const r = await call(n, 'POST', '/v1/licence/installs/ask', { purpose: 'dr', label: 'dr-b' });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { req_id: string; code: string; text: string };
}

describe('the exchange with the licence authority online', () => {
  it('43: a free seat: the authority adds N to the next serial at once; N installs it or polls for it', async () => {
    const { e, n } = await pair();
    const a = await ask(n);
    const look = await call(e, 'POST', '/v1/licence/installs/look', { text: a.text });
    expect(look.body).toMatchObject({ would: 'granted' });
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body).toMatchObject({ result: 'granted', valid_until: null });
    expect(authority.forwards.length).toBeGreaterThan(0);
    // E runs the new serial, which lists both.
    expect(await serialOf(e)).toEqual([E_FP, N_FP]);
    // Anyone may know N's fingerprint and key: an unsigned poll for them gets no licence.
    const nKey = n.runtime.keyFor('ed25519');
    const forged = await postToAuthority(
      {
        authorityUrl: authority.url,
        authorityPins: [],
        caBundle: authority.caBundle,
        httpsProxy: null,
        noProxy: null,
      },
      '/v1/installs/poll',
      {
        payload: Buffer.from(
          JSON.stringify({
            format: 'svc-install-poll/1',
            req_id: a.req_id,
            fingerprint: N_FP,
            install_pub: nKey === null ? '' : installPubOf(nKey),
            nonce: 'x',
          }),
        ).toString('base64url'),
        sig: 'AAAA',
      },
    );
    expect(forged).toMatchObject({ ok: true, body: { status: 'unknown' } });
    // N learns it by polling the authority: installed, listed, no grant needed.
    const p = await call(n, 'POST', '/v1/licence/installs/poll');
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body['state']).toBe('granted');
    const status = (await call(n, 'GET', '/v1/status')).body as {
      licence: { valid: boolean; vouched_until: string | null; source?: string };
    };
    expect(status.licence).toMatchObject({ valid: true, vouched_until: null });
    const vouched = (
      (await call(e, 'GET', '/v1/ledger?type=licence.install.vouched')).body as {
        events: { data: Json }[];
      }
    ).events.map((x) => [x.data['result'], x.data['via']]);
    expect(vouched).toEqual([
      ['granted', 'authority'],
      ['pending', 'authority'],
    ]);
  });

  it('43: seats full: pending until the vendor approves; E’s next check brings the serial, N’s poll installs it', async () => {
    const { e, n } = await pair({}, { limits: { services: 50, installs: 1 } });
    const a = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body['result']).toBe('pending');
    expect(String(v.body['why'])).toContain('install limit reached');
    const waiting = await call(n, 'POST', '/v1/licence/installs/poll');
    expect(waiting.body['state']).toBe('pending');
    // The same text again is a replay, whatever the authority said.
    const again = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: a.text,
      code: a.code,
    });
    expect(again.body['error']).toBe('already_vouched');

    authority.approve(a.req_id);
    const checked = await call(e, 'POST', '/v1/licence/check');
    expect(checked.status).toBe(200);
    expect(await serialOf(e)).toEqual([E_FP, N_FP]);
    const done = await call(n, 'POST', '/v1/licence/installs/poll');
    expect(done.body['state']).toBe('granted');
    expect((await call(n, 'GET', '/v1/status')).body['mode']).not.toBe('setup');
    const polled = (
      (await call(n, 'GET', '/v1/ledger?type=licence.install.polled')).body as {
        events: { data: Json }[];
      }
    ).events.map((x) => [x.data['state'], x.data['from']]);
    expect(polled).toEqual([
      ['granted', 'authority'],
      ['pending', 'authority'],
    ]);
  });

  it('an authority that cannot be reached: E decides offline and says so', async () => {
    const closed = `https://127.0.0.1:${String(await freePort())}`;
    const { e, n } = await pair({ SVC_AUTHORITY_URL: closed });
    const a = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body['result']).toBe('granted');
    expect(String(v.body['why'])).toContain('the licence authority could not be reached');
    expect(String(v.body['text'])).toContain('-----BEGIN SVC INSTALL GRANT-----');
    expect((await call(n, 'POST', '/v1/licence', { licence: v.body['text'] })).status).toBe(200);
  });

  it('a grant carries E’s revocation list to N; a list withdrawing the grant makes N a candidate again', async () => {
    const closed = `https://127.0.0.1:${String(await freePort())}`;
    const files = mkdtempSync(join(tmpdir(), 'svc-lists-'));
    const eList = join(files, 'e.json');
    const nList = join(files, 'n.json');
    // E holds a newer list than the one every build bundles (seq 1).
    const seq = authority.revoke({});
    writeFileSync(eList, JSON.stringify(authority.revocations()));
    const { e, n } = await pair(
      { SVC_AUTHORITY_URL: closed, SVC_LICENCE_CHECK: 'offline' },
      {},
      { e: { SVC_REVOCATION_FILE: eList }, n: { SVC_REVOCATION_FILE: nList } },
    );
    expect(e.runtime.licence.revocations().seq).toBe(seq);
    expect(n.runtime.licence.revocations().seq).toBe(0);
    const a = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    expect(v.body['result']).toBe('granted');
    expect((await call(n, 'POST', '/v1/licence', { licence: v.body['text'] })).status).toBe(200);
    expect(n.runtime.licence.revocations().seq).toBe(seq);

    // The vendor withdraws the grant; N reads the list placed for it.
    authority.revoke({ grant: a.req_id });
    writeFileSync(nList, JSON.stringify(authority.revocations()));
    await n.runtime.licence.tick();
    const status = (await call(n, 'GET', '/v1/status')).body as {
      mode: string;
      licence: { valid: boolean; why: string; vouched_until: string | null };
    };
    expect(status.mode).toBe('setup');
    expect(status.licence.vouched_until).toBeNull();
    expect(status.licence.why).toContain(`the grant from ${E_FP} was revoked (seat removed)`);
  });

  it('46 online: removing N on E gets the next serial without it from the authority, installed on E', async () => {
    const { e, n } = await pair();
    const a = await ask(n);
    await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    expect(await serialOf(e)).toEqual([E_FP, N_FP]);
    const removed = await call(e, 'POST', '/v1/licence/installs/remove', { fingerprint: N_FP });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body['authority']).toMatchObject({ result: 'serial' });
    expect(authority.removals).toContain(N_FP);
    expect(await serialOf(e)).toEqual([E_FP]);
    // The new serial is the vendor's word: the removal is no longer listed in usage.
    const usage = (await call(e, 'GET', '/v1/licence/usage')).body as { payload: string };
    const statement = JSON.parse(Buffer.from(usage.payload, 'base64url').toString('utf8')) as {
      installs: { removed: unknown[] };
    };
    expect(statement.installs.removed).toEqual([]);
  });

  it('an authority that answers no (a 4xx) is not "unreachable": E refuses, grants nothing offline', async () => {
    const { e, n } = await pair();
    // E's licence from an issuer the authority never heard of: it refuses the forward (400).
    const key = e.runtime.keyFor('ed25519');
    if (key === null) throw new Error('no install key on E');
    const own = createTestIssuer().licence(
      licencePayload(new Date().toISOString(), {
        installs: [
          productionInstall(E_FP, new Date().toISOString(), { install_pub: installPubOf(key) }),
        ],
      }),
    );
    expect((await call(e, 'POST', '/v1/licence', { licence: own, acknowledge: true })).status).toBe(
      200,
    );
    const a = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    expect(v.status, JSON.stringify(v.body)).toBe(409);
    expect(v.body['error']).toBe('authority_refused');
    expect(String(v.body['message'])).toContain('no such licence');
    const again = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: a.text,
      code: a.code,
    });
    expect(again.body['error']).toBe('already_vouched');
    const results = (
      (await call(e, 'GET', '/v1/ledger?type=licence.install.vouched')).body as {
        events: { data: Json }[];
      }
    ).events.map((x) => x.data['result']);
    expect(results).toEqual(['refused', 'pending']);
  });

  it('44: offline with no grants allowed: the forward bundle, uploaded to the vendor, comes back as a licence for N and E', async () => {
    const { e, n } = await pair(
      { SVC_LICENCE_CHECK: 'offline' },
      { vouch: { self_service: 0, grant_days: 60 } },
    );
    const a = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    expect(v.body['result']).toBe('manual');
    const uploaded = await postToAuthority(
      {
        authorityUrl: authority.url,
        authorityPins: [],
        caBundle: authority.caBundle,
        httpsProxy: null,
        noProxy: null,
      },
      '/v1/installs/forward',
      { forward: v.body['text'] },
    );
    expect(uploaded).toMatchObject({ ok: true, status: 200, body: { status: 'granted' } });
    const licence = JSON.stringify((uploaded as { body: { licence: unknown } }).body.licence);
    expect((await call(n, 'POST', '/v1/licence', { licence })).status).toBe(200);
    expect((await call(e, 'POST', '/v1/licence', { licence })).status).toBe(200);
    expect(await serialOf(e)).toEqual([E_FP, N_FP]);
    expect((await call(n, 'GET', '/v1/status')).body['mode']).not.toBe('setup');
  });
});
