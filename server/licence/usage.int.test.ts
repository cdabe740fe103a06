// The signed usage statement through the real server (licence.md §3.10, cases 48–52): it
// verifies with the install_pub the licence lists, prev chains statements, its ledger
// checkpoint is GET /v1/ledger/verify's head, service names appear only hashed when asked,
// and every statement is audited. The vendor's verifier refuses an altered statement.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../install/index.js';
import { createFakeClock } from '../shared/clock.js';
import { createTestIssuer, licencePayload, productionInstall } from '../testing/licence/issuer.js';
import {
  ADMIN_TOKEN,
  buildTestServer,
  postAlert,
  type TestServer,
} from '../testing/test-server.js';
import { freePort } from '../testing/processes.js';
import { hashedServiceId, installPubOf, verifyUsageStatement } from './index.js';

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const START = '2026-11-27T12:00:00.000Z';
const issuer = createTestIssuer();
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

let s: TestServer | null = null;
afterEach(async () => {
  await s?.cleanup();
  s = null;
});

type Env = { format: string; payload: string; signatures: { alg: string; kid: string }[] };
const usage = async (t: TestServer, query = '') => {
  const r = await t.app.inject({ url: `/v1/licence/usage${query}`, headers: auth });
  expect(r.statusCode, r.body).toBe(200);
  return r.json<Env>();
};
const payloadOf = (e: Env) =>
  JSON.parse(Buffer.from(e.payload, 'base64url').toString('utf8')) as Record<string, unknown> & {
    prev: string | null;
    services: Record<string, unknown>;
    ledger: { size: number; root: string | null };
  };

/** A server under a licence that lists this install with its real install_pub. */
async function licensed(env: Record<string, string> = {}, clock = createFakeClock(START)) {
  s = await buildTestServer({ env: { SVC_TRIAL: '0', ...env }, clock });
  const key = s.runtime.keyFor('ed25519');
  if (key === null) throw new Error('no install key');
  const pub = installPubOf(key);
  const p = licencePayload(START, {
    limits: { services: 1, installs: 10 },
    installs: [productionInstall(THIS, START, { install_pub: pub })],
  });
  const r = await s.app.inject({
    method: 'POST',
    url: '/v1/licence',
    headers: auth,
    payload: { licence: issuer.licence(p) },
  });
  expect(r.statusCode, r.body).toBe(200);
  return { s, pub, licenceId: p.licence_id };
}

describe('GET /v1/licence/usage', () => {
  it('verifies with the licence install_pub, chains prev, carries the verify head, names no service, is audited', async () => {
    const { s, pub, licenceId } = await licensed();
    for (const service of ['checkout-api', 'payments-db'])
      expect((await postAlert(s, { name: 'Down', service })).statusCode).toBe(202);

    const verify = (await s.app.inject({ url: '/v1/ledger/verify', headers: auth })).json<{
      head: { seq: number; hash: string };
    }>();
    const first = await usage(s);
    // 48: verifies with install_pub from the licence.
    const v1 = verifyUsageStatement(first, { installPub: pub });
    expect(v1.ok).toBe(true);
    const p1 = payloadOf(first);
    expect(p1).toMatchObject({
      format: 'svc-usage/1',
      licence_id: licenceId,
      serial: 1,
      fingerprint: THIS,
      install_pub: pub,
      prev: null,
      trial: null,
      installs: { this_role: 'production' },
      clock: { backwards_events: 0 },
    });
    expect(p1.services).toMatchObject({
      limit: 1,
      counted_now: 2,
      max_daily: 2,
      pinned: 0,
      uncovered_now: 1,
      uncovered_signal_days: 1,
    });
    // 50: the ledger checkpoint is verify's head.
    expect(p1.ledger).toMatchObject({ size: verify.head.seq, root: verify.head.hash });
    // 51: no service names unless asked for hashed ones.
    const text1 = Buffer.from(first.payload, 'base64url').toString('utf8');
    expect(text1).not.toContain('checkout-api');
    expect(p1.services['ids']).toBeUndefined();

    const second = await usage(s, '?ids=hashed');
    const p2 = payloadOf(second);
    expect(Buffer.from(second.payload, 'base64url').toString('utf8')).not.toContain('payments');
    expect(p2.services['ids']).toEqual(
      ['checkout-api', 'payments-db'].map((x) => hashedServiceId(licenceId, x)).sort(),
    );
    const third = await usage(s);
    // 49: prev chains across three statements.
    const v2 = verifyUsageStatement(second, { installPub: pub });
    const v3 = verifyUsageStatement(third, { installPub: pub });
    if (!v1.ok || !v2.ok || !v3.ok) throw new Error('a statement did not verify');
    expect(p2.prev).toBe(v1.sha256);
    expect(payloadOf(third).prev).toBe(v2.sha256);
    expect(payloadOf(third)['period']).toMatchObject({ from: (p2['period'] as { to: string }).to });

    // 52: each statement is audited with its hash.
    const evs = (
      await s.app.inject({ url: '/v1/ledger?type=licence.usage_exported&order=asc', headers: auth })
    ).json<{ events: { data: Record<string, unknown> }[] }>().events;
    expect(evs.map((e) => e.data['sha256'])).toEqual([v1.sha256, v2.sha256, v3.sha256]);
    expect(evs.map((e) => e.data['hashed_ids'])).toEqual([false, true, false]);
  });

  it('reports clock resets since the last statement and checks that failed in 30 days', async () => {
    const clock = createFakeClock(START);
    const closed = `https://127.0.0.1:${String(await freePort())}`;
    const { s: t } = await licensed({ SVC_AUTHORITY_URL: closed }, clock);
    const failed = await t.app.inject({ method: 'POST', url: '/v1/licence/check', headers: auth });
    expect(failed.json<{ result: string }>().result).toBe('unreachable');
    // The clock jumped 10 days ahead and back: the mark stayed ahead until reset on the host.
    clock.advance(10 * 86_400_000);
    await t.runtime.licence.tick();
    clock.advance(-10 * 86_400_000);
    const moved = await t.runtime.licence.resetClock(clock.now(), 'host:root');
    expect(moved).not.toBeNull();
    const statement = payloadOf(await usage(t)) as unknown as {
      check: { failures_30d: number };
      clock: { resets: { source: string; from: string; to: string }[] };
    };
    expect(statement.check.failures_30d).toBe(1);
    expect(statement.clock.resets).toEqual([
      expect.objectContaining({ source: 'cli', from: moved?.from, to: moved?.to }),
    ]);
    // The next statement starts after it: reported once.
    const next = payloadOf(await usage(t)) as unknown as { clock: { resets: unknown[] } };
    expect(next.clock.resets).toEqual([]);
  });

  it('under SVC_FIPS=1 it is signed ES256 by the install’s P-256 key, which it names', async () => {
    const { s: t, pub } = await licensed({ SVC_FIPS: '1' });
    const statement = await usage(t);
    expect(statement.signatures.map((x) => x.alg)).toEqual(['ES256']);
    const named = (payloadOf(statement) as unknown as { install_pub_p256: string })
      .install_pub_p256;
    const p256 = createPublicKey({
      key: Buffer.from(named, 'base64url'),
      format: 'der',
      type: 'spki',
    });
    const own = t.runtime.keyFor('ecdsa-p256');
    expect(own?.export({ format: 'der', type: 'spki' })).toEqual(
      p256.export({ format: 'der', type: 'spki' }),
    );
    expect(verifyUsageStatement(statement, { installPub: pub, installPubP256: p256 }).ok).toBe(
      true,
    );
    expect(verifyUsageStatement(statement, { installPub: pub }).ok).toBe(false);
  });

  it('is for admins, and 404 with no licence', async () => {
    s = await buildTestServer({ env: { SVC_TRIAL: '0' } });
    expect((await s.app.inject({ url: '/v1/licence/usage' })).statusCode).toBe(401);
    const r = await s.app.inject({ url: '/v1/licence/usage', headers: auth });
    expect(r.statusCode).toBe(404);
  });

  it('the vendor refuses an altered statement, another install key, and a bad signature', async () => {
    const { s, pub } = await licensed();
    const env = await usage(s);
    const p = payloadOf(env);
    const altered = {
      ...env,
      payload: Buffer.from(
        JSON.stringify({ ...p, services: { ...p.services, counted_now: 1 } }),
      ).toString('base64url'),
    };
    expect(verifyUsageStatement(altered, { installPub: pub })).toMatchObject({
      ok: false,
      check: 'signature',
    });
    const other = installPubOf(generateKeyPairSync('ed25519').publicKey);
    expect(verifyUsageStatement(env, { installPub: other })).toMatchObject({ ok: false });
    expect(verifyUsageStatement('{', { installPub: pub })).toMatchObject({ check: 'format' });
    expect(verifyUsageStatement(JSON.stringify(env), { installPub: pub }).ok).toBe(true);
  });
});
