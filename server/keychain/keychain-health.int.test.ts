// Member health and site-key lifetimes on one install with a fake clock (in-process): a
// member silent for 3 minutes is marked silent once, gone after a day, back when heard, and
// never removed; a site key past its hours shows expired.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { appendRecord, exportSigPub } from './authority-log.js';

type Json = Record<string, unknown>;

describe('keychain health and lifetimes', () => {
  const clock = createFakeClock('2026-11-28T10:00:00.000Z');
  let s: TestServer;
  const member = generateKeyPairSync('ed25519');
  const memberFp = keyFingerprint(member.publicKey);

  const get = async (): Promise<Json> =>
    (await s.app.inject({ method: 'GET', url: '/v1/keychain', headers: asAdmin() })).json<Json>();
  const post = (url: string, payload?: Json) =>
    s.app.inject({
      method: 'POST',
      url,
      headers: asAdmin(),
      ...(payload !== undefined && { payload }),
    });
  const events = (type: string): unknown[] =>
    s.runtime.reader.list({ type, order: 'asc' }).events.map((e) => e.data);

  beforeAll(async () => {
    s = await buildTestServer({ clock });
    expect((await post('/v1/keychain/home', { label: 'home' })).statusCode).toBe(200);
    // A member as the home's enrolment records one (the peer exchange is tested between processes).
    const rt = s.runtime;
    const st = rt.keychainStore.state();
    const head = rt.keychainStore.log().at(-1) ?? null;
    if (st === null || rt.identityKey === null) throw new Error('no home');
    const body = {
      fp: memberFp,
      sig_pub: exportSigPub(member.publicKey),
      kx_pub: 'x25519:AAAA',
      label: 'dc-b',
      address: null,
      via: 'site_key:TEST',
    };
    const record = appendRecord(
      head,
      { keychain_id: st.keychain_id, epoch: st.epoch, type: 'member_add', body },
      { fp: rt.keyFingerprint, key: rt.identityKey },
      clock.nowIso(),
    );
    await rt.writer.transact(() => {
      rt.ledger.append({
        type: 'keychain.member_added',
        actor: `peer:${memberFp}`,
        data: {
          fingerprint: memberFp,
          label: 'dc-b',
          sig_pub: body.sig_pub,
          kx_pub: body.kx_pub,
          address: null,
          via: body.via,
          record,
        },
      });
      rt.keychainStore.heard(memberFp, clock.nowIso());
    });
  });
  afterAll(async () => {
    await s.cleanup();
  });

  const memberView = async (): Promise<Json | undefined> =>
    ((await get())['members'] as Json[]).find((m) => m['fingerprint'] === memberFp);

  it('is ok while heard, silent once after 3 minutes, gone once after a day, never removed', async () => {
    expect(await memberView()).toMatchObject({ health: 'ok', quiet_s: 0 });
    clock.advance(179_000);
    await post('/v1/keychain/pull');
    expect(await memberView()).toMatchObject({ health: 'ok', quiet_s: 179 });
    clock.advance(2_000);
    expect((await post('/v1/keychain/pull')).statusCode).toBe(200);
    await post('/v1/keychain/pull');
    expect(await memberView()).toMatchObject({ health: 'silent', quiet_s: 181 });
    expect(events('keychain.member_silent')).toEqual([{ fingerprint: memberFp, quiet_s: 181 }]);
    clock.advance(86_400_000);
    await post('/v1/keychain/pull');
    await post('/v1/keychain/pull');
    expect(await memberView()).toMatchObject({ health: 'gone' });
    expect(events('keychain.member_gone')).toHaveLength(1);
    s.runtime.keychainStore.heard(memberFp, clock.nowIso());
    await post('/v1/keychain/pull');
    expect(await memberView()).toMatchObject({ health: 'ok', quiet_s: 0 });
    expect(events('keychain.member_back')).toHaveLength(1);
  });

  it('shows a site key past its hours as expired', async () => {
    const made = await post('/v1/keychain/site-keys', { labels: ['late'], hours: 1 });
    expect(made.statusCode).toBe(200);
    const id = made.json<{ keys: { id: string }[] }>().keys[0]?.id;
    clock.advance(3_600_000);
    expect((await get())['site_keys']).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, status: 'expired' })]),
    );
  });

  it('refuses a member-only or home-only call with why, and a pull outside any keychain', async () => {
    const fresh = await buildTestServer();
    try {
      const none = await fresh.app.inject({
        method: 'POST',
        url: '/v1/keychain/pull',
        headers: asAdmin(),
      });
      expect(none.statusCode).toBe(409);
      expect(none.json()).toMatchObject({ error: 'not_in_keychain' });
      const keys = await fresh.app.inject({
        method: 'POST',
        url: '/v1/keychain/site-keys',
        headers: asAdmin(),
        payload: { labels: ['x'] },
      });
      expect(keys.json()).toMatchObject({ error: 'not_in_keychain' });
      const viewer = await fresh.app.inject({
        method: 'POST',
        url: '/v1/keychain/home',
        payload: { label: 'x' },
      });
      expect(viewer.statusCode).toBe(401);
    } finally {
      await fresh.cleanup();
    }
  });
});
