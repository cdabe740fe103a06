// POST /v1/licence/redeem through the real server (design licence.md §4.2 cases 30–31): a short
// code redeemed online at the HTTPS test authority (one trial per company), and an offline
// SVCT1- code verified here, bound to this fingerprint and refused a second time (trial_used).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuthority, type TestAuthority } from '../../e2e/authority/authority.js';
import { fingerprintOf } from '../install/index.js';
import { createFakeClock } from '../shared/clock.js';
import { productionInstall } from '../testing/licence/issuer.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../testing/test-server.js';

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const START = '2026-11-27T12:00:00.000Z';
const DAY = 86_400_000;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

let authority: TestAuthority;
let listDir: string;
/** The revocation list as a release bundles it: seq 1, carrying the trial key's statement. */
let listFile: string;
beforeAll(async () => {
  authority = await startTestAuthority();
  authority.setTime(START);
  authority.revoke({});
  listDir = mkdtempSync(join(tmpdir(), 'svc-list-'));
  listFile = join(listDir, 'revocations.json');
  writeFileSync(listFile, JSON.stringify(authority.revocations()));
});
afterAll(async () => {
  await authority.close();
  rmSync(listDir, { recursive: true, force: true });
});
const servers: TestServer[] = [];
afterEach(async () => {
  for (const t of servers.splice(0)) await t.cleanup();
});

async function server(env: Record<string, string> = {}, clock = createFakeClock(START)) {
  const t = await buildTestServer({
    env: {
      SVC_TRIAL: '0',
      SVC_AUTHORITY_URL: authority.url,
      SVC_CA_BUNDLE: authority.caBundle,
      ...env,
    },
    clock,
  });
  servers.push(t);
  return t;
}
/** A server whose revocation list (as bundled with a release) carries the trial key's statement. */
const withList = (env: Record<string, string> = {}, clock = createFakeClock(START)) =>
  server({ SVC_REVOCATION_FILE: listFile, ...env }, clock);
const redeem = (t: TestServer, code: string) =>
  t.app.inject({ method: 'POST', url: '/v1/licence/redeem', headers: auth, payload: { code } });
const status = async (t: TestServer) =>
  (await t.app.inject({ url: '/v1/status' })).json<{
    mode: string;
    licence: Record<string, unknown> | null;
  }>();
const events = async (t: TestServer, prefix = 'licence.') =>
  (
    await t.app.inject({ url: `/v1/ledger?type=${prefix}&order=asc&limit=200`, headers: auth })
  ).json<{ events: { type: string; actor: string; data: Record<string, unknown> }[] }>().events;

describe('online short codes (case 30)', () => {
  it('a short code becomes a trial licence for this install; a second for the same company is trial_used from the authority', async () => {
    authority.addCode('SVCT-AB12-CD34', 'acme.example');
    authority.addCode('SVCT-EF56-GH78', 'acme.example');
    const t = await server();
    const r = await redeem(t, 'svct-ab12-cd34');
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({
      via: 'online',
      licence: { kind: 'licence', tier: 'trial', valid: true, on_licence: true, source: 'redeem' },
    });
    expect((await status(t)).mode).toBe('configuring');
    const installed = (await events(t)).find((e) => e.type === 'licence.installed');
    expect(installed?.data).toMatchObject({ source: 'redeem', tier: 'trial' });

    const other = await server();
    const again = await redeem(other, 'SVCT-EF56-GH78');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'trial_used' });
    expect(
      (await events(other)).find((e) => e.type === 'licence.trial_refused')?.data,
    ).toMatchObject({
      why: 'trial_used',
      code: 'online',
    });
    expect((await status(other)).mode).toBe('setup');
  });

  it('an unknown code is refused with the check the authority named; a malformed one is 400 without asking', async () => {
    const t = await server();
    const before = authority.checks.length + authority.server.requests;
    const r = await redeem(t, 'SVCT-ZZZZ-ZZZZ');
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ error: 'trial_code_refused', check: 'unknown_code' });
    const requests = authority.server.requests;
    const bad = await redeem(t, 'hello');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_code', field: 'code' });
    expect(authority.server.requests).toBe(requests);
    expect(before).toBeLessThan(authority.checks.length + authority.server.requests);
  });

  it('offline mode never asks: 409 offline_by_choice, no connection', async () => {
    const t = await server({ SVC_LICENCE_CHECK: 'offline' });
    const connections = authority.server.connections;
    const r = await redeem(t, 'SVCT-AB12-CD34');
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ error: 'offline_by_choice' });
    expect(authority.server.connections).toBe(connections);
  });

  it('is for the owner only', async () => {
    const t = await server();
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/licence/redeem',
      payload: { code: 'SVCT-AB12-CD34' },
    });
    expect(r.statusCode).toBe(401);
  });
});

describe('offline SVCT1- and SVCT2- codes (case 31)', () => {
  it('a code is verified with the trial key the bundled list names, bound to this fingerprint; again here is trial_used', async () => {
    const t = await withList();
    const code = authority.trialCode({ days: 30 });
    const r = await redeem(t, code);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({
      via: 'offline',
      licence: {
        kind: 'trial',
        tier: 'trial',
        verified: true,
        valid: true,
        source: 'redeem',
        on_licence: true,
        expires_at: new Date(Date.parse(START) + 30 * DAY).toISOString(),
      },
    });
    const st = await status(t);
    expect(st.mode).toBe('configuring');
    expect(st.licence).toMatchObject({ verified: true, services: 50, install_limit: 10 });
    const redeemed = (await events(t)).find((e) => e.type === 'licence.trial_redeemed');
    expect(redeemed?.data).toMatchObject({ fingerprint: THIS, days: 30, verified: true });
    expect(JSON.stringify(await events(t))).not.toContain(code);

    const again = await redeem(t, code);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'trial_used' });
    // Another code of the same company, too.
    const company = String(redeemed?.data['company_key']);
    const sameCompany = await redeem(t, authority.trialCode({ company_key: company }));
    expect(sameCompany.json()).toMatchObject({ error: 'trial_used' });
    expect(
      (await events(t)).filter((e) => e.type === 'licence.trial_refused').map((e) => e.data['why']),
    ).toEqual(['trial_used', 'trial_used']);
  });

  it('SVCT2- (P-256) redeems anywhere; under SVC_FIPS=1 only SVCT2- does', async () => {
    const plain = await withList();
    const p256 = authority.trialCode({}, 'ES256');
    expect(p256.startsWith('SVCT2-')).toBe(true);
    expect((await redeem(plain, p256)).statusCode).toBe(200);

    const fips = await withList({ SVC_FIPS: '1' });
    const ed = await redeem(fips, authority.trialCode());
    expect(ed.statusCode).toBe(400);
    expect(ed.json()).toMatchObject({ error: 'trial_code_refused', check: 'fips' });
    expect(ed.json<{ message: string }>().message).toContain('SVCT2-');
    const ok = await redeem(fips, authority.trialCode({}, 'ES256'));
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await status(fips)).licence).toMatchObject({ verified: true, valid: true });
  });

  it('a redeemed code survives a restart and does not operate on another fingerprint', async () => {
    const clock = createFakeClock(START);
    const t = await withList({}, clock);
    expect((await redeem(t, authority.trialCode())).statusCode).toBe(200);
    await t.stop();
    writeFileSync(join(t.dir, 'machine-id'), '0123456789abcdef0123456789abcdef\n');
    const moved = await buildTestServer({
      env: { SVC_TRIAL: '0', SVC_LICENCE_CHECK: 'offline' },
      clock,
      dir: t.dir,
    });
    servers.push(moved);
    const st = await status(moved);
    expect(st.mode).toBe('setup');
    expect(st.licence).toMatchObject({ valid: false, verified: true });
    expect(String(st.licence?.['why'])).toContain('redeemed on another install');
  });

  it('refuses a code whose key this install does not know, an altered code and an expired code', async () => {
    const bare = await server();
    const unknown = await redeem(bare, authority.trialCode());
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: 'trial_code_refused', check: 'unknown_key' });

    const t = await withList();
    const code = authority.trialCode();
    const i = 20;
    const altered = `${code.slice(0, i)}${code.charAt(i) === 'A' ? 'B' : 'A'}${code.slice(i + 1)}`;
    const r = await redeem(t, altered);
    expect(r.statusCode).toBe(400);
    expect(['signature', 'format']).toContain(r.json<{ check: string }>().check);

    const late = await redeem(
      t,
      authority.trialCode({ redeem_by: new Date(Date.parse(START) - 1000).toISOString() }),
    );
    expect(late.json()).toMatchObject({ check: 'expired' });
    const whys = (await events(t))
      .filter((e) => e.type === 'licence.trial_refused')
      .map((e) => e.data['why']);
    expect(whys).toHaveLength(2);
    expect(whys[1]).toBe('expired');
  });

  it('a signed licence in force: a trial code cannot replace it (409)', async () => {
    const t = await withList();
    const { envelope } = authority.issue({
      installs: [productionInstall(THIS, START, { install_pub: 'A'.repeat(43), label: 'p' })],
    });
    await t.app.inject({
      method: 'POST',
      url: '/v1/licence',
      headers: auth,
      payload: { licence: JSON.stringify(envelope) },
    });
    const r = await redeem(t, authority.trialCode());
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ error: 'licence_in_force' });
  });
});
