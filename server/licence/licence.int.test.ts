// The licence through the real server: POST and DELETE /v1/licence with each refusal's check
// and ledger event, mode and status following the licence, a mounted file, expiry stages at
// effective time, the clock turned back, revocation lists, and a restart keeping the licence.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../install/index.js';
import { createFakeClock } from '../shared/clock.js';
import { createTestIssuer, licencePayload, productionInstall } from '../testing/licence/issuer.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../testing/test-server.js';
import type { LicencePayload } from './index.js';

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const START = '2026-11-27T12:00:00.000Z';
const DAY = 86_400_000;
const issuer = createTestIssuer();
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

const here = (over: Partial<LicencePayload> = {}): LicencePayload =>
  licencePayload(START, {
    installs: [productionInstall(THIS, START)],
    ...over,
  });

let s: TestServer | null = null;
afterEach(async () => {
  await s?.cleanup();
  s = null;
});

async function server(
  env: Record<string, string> = {},
  clock = createFakeClock(START),
  dir?: string,
) {
  s = await buildTestServer({
    env: { SVC_TRIAL: '0', ...env },
    clock,
    ...(dir !== undefined && { dir }),
  });
  return { s, clock };
}
const post = (t: TestServer, licence: unknown, acknowledge?: boolean) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/licence',
    headers: auth,
    payload: { licence, ...(acknowledge !== undefined && { acknowledge }) },
  });
const status = async (t: TestServer) =>
  (await t.app.inject({ url: '/v1/status' })).json<{
    mode: string;
    licence: Record<string, unknown> | null;
  }>();
const events = async (t: TestServer, prefix = 'licence.') =>
  (
    await t.app.inject({ url: `/v1/ledger?type=${prefix}&order=asc&limit=200`, headers: auth })
  ).json<{
    events: { type: string; data: Record<string, unknown> }[];
  }>().events;

describe('POST and DELETE /v1/licence', () => {
  it('installs a licence for this install: mode leaves setup, status shows it, the ledger records it once', async () => {
    const { s } = await server();
    expect((await status(s)).mode).toBe('setup');
    const gated = await s.app.inject({ url: '/v1/episodes', headers: auth });
    expect(gated.statusCode).toBe(503);
    expect(gated.json()).toEqual({ error: 'not operating yet', mode: 'setup' });

    const p = here();
    const env = issuer.licence(p);
    const r = await post(s, JSON.stringify(env));
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({
      changed: true,
      licence: { kind: 'licence', tier: 'enterprise', valid: true },
    });
    const st = await status(s);
    expect(st.mode).toBe('configuring');
    expect(st.licence).toMatchObject({
      installs: 1,
      install_limit: 10,
      services: 250,
      in_grace: false,
      stage: 'valid',
      verified: true,
    });
    // The same licence again changes nothing and records nothing.
    expect((await post(s, env)).json()).toMatchObject({ changed: false });
    const evs = await events(s);
    expect(evs.map((e) => e.type)).toEqual(['licence.installed', 'licence.mode_changed']);
    expect(evs[0]?.data).toMatchObject({ source: 'api', licence_id: p.licence_id, serial: 1 });
    expect(JSON.stringify(evs)).not.toContain(env.payload); // headline and digest, not the text
  });

  it('refuses a forged, a rolled-back, a foreign and a lossy licence, each with its check, keeping the one in force', async () => {
    const { s } = await server();
    const p = here({ serial: 3 });
    expect((await post(s, issuer.licence(p))).statusCode).toBe(200);

    const forged = issuer.licence({ ...p, serial: 4, limits: { services: 5000, installs: 10 } });
    const tampered = {
      ...forged,
      payload: issuer.licence({ ...p, serial: 4, limits: { services: 9999, installs: 10 } })
        .payload,
    };
    const cases: [unknown, number, string][] = [
      [tampered, 400, 'signature'],
      [issuer.licence({ ...p, serial: 2 }), 400, 'rollback'],
      [issuer.licence({ ...p, customer: { id: 'x', name: 'changed' } }), 400, 'rollback'],
      [issuer.licence(licencePayload(START)), 400, 'not_for_this_install'],
      ['{"format":"svc-licence/1"', 400, 'format'],
    ];
    for (const [doc, code, check] of cases) {
      const r = await post(s, doc);
      expect(r.statusCode, check).toBe(code);
      expect(r.json(), check).toMatchObject({ error: 'licence_refused', field: 'licence', check });
    }
    const lossy = issuer.licence({
      ...p,
      serial: 4,
      limits: { services: 50, installs: 10 },
      features: { keychain: false, packs: '*' },
    });
    const r409 = await post(s, lossy);
    expect(r409.statusCode).toBe(409);
    expect(r409.json()).toMatchObject({
      error: 'would_lose',
      losses: ['services limit 250 → 50', 'the keychain'],
    });
    expect((await status(s)).licence).toMatchObject({ services: 250 });
    expect((await post(s, lossy, true)).statusCode).toBe(200);
    expect((await status(s)).licence).toMatchObject({ services: 50 });

    const evs = await events(s);
    expect(evs.filter((e) => e.type === 'licence.refused').map((e) => e.data['check'])).toEqual([
      'signature',
      'rollback',
      'rollback',
      'not_for_this_install',
      'format',
    ]);
    expect(evs.find((e) => e.type === 'licence.replaced')?.data).toMatchObject({
      serial: 4,
      previous: { serial: 3 },
      acknowledged_losses: ['services limit 250 → 50', 'the keychain'],
    });
  });

  it('DELETE goes back to setup, and a restart keeps whatever was in force', async () => {
    const { s: first } = await server();
    expect((await post(first, issuer.licence(here()))).statusCode).toBe(200);
    const dir = first.dir;
    await first.stop();
    s = null;
    const { s: again } = await server({}, createFakeClock(START), dir);
    expect((await status(again)).mode).toBe('configuring');
    const del = await again.app.inject({ method: 'DELETE', url: '/v1/licence', headers: auth });
    expect(del.statusCode).toBe(200);
    expect((await status(again)).mode).toBe('setup');
    expect((await status(again)).licence).toBeNull();
    expect(
      (await again.app.inject({ method: 'DELETE', url: '/v1/licence', headers: auth })).statusCode,
    ).toBe(404);
    expect((await events(again)).map((e) => e.type)).toContain('licence.removed');
  });

  it('two different licences of the same serial racing: one is installed, the other refused as a rollback', async () => {
    const { s } = await server();
    const p = here({ serial: 2 });
    const a = issuer.licence(p);
    const b = issuer.licence({ ...p, customer: { id: 'x', name: 'other bytes' } });
    const [ra, rb] = await Promise.all([post(s, a), post(s, b)]);
    expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 400]);
    const loser = ra.statusCode === 400 ? ra : rb;
    expect(loser.json()).toMatchObject({ check: 'rollback' });
    const winner = ra.statusCode === 200 ? a : b;
    const copy = readFileSync(join(s.dir, 'data', 'licence.json'), 'utf8');
    expect(JSON.parse(copy)).toEqual(winner); // the copy on disk is the one recorded
    expect((await events(s)).filter((e) => e.type === 'licence.installed')).toHaveLength(1);
  });

  it('a copy written just before a crash (no event yet) is recorded at the next start', async () => {
    const { s: first } = await server();
    const dir = first.dir;
    await first.stop();
    s = null;
    const p = here();
    writeFileSync(join(dir, 'data', 'licence.json'), JSON.stringify(issuer.licence(p)));
    const { s: again } = await server({}, createFakeClock(START), dir);
    expect((await status(again)).mode).toBe('configuring');
    expect((await events(again)).find((e) => e.type === 'licence.installed')?.data).toMatchObject({
      licence_id: p.licence_id,
    });
  });

  it('DELETE ends the offline trial too, and a restart with SVC_TRIAL=1 does not start another', async () => {
    const { s: first } = await server({ SVC_TRIAL: '1' });
    expect((await status(first)).licence).toMatchObject({ kind: 'trial', valid: true });
    expect(
      (await first.app.inject({ method: 'DELETE', url: '/v1/licence', headers: auth })).statusCode,
    ).toBe(200);
    expect((await status(first)).mode).toBe('setup');
    const dir = first.dir;
    await first.stop();
    s = null;
    const { s: again } = await server({ SVC_TRIAL: '1' }, createFakeClock(START), dir);
    expect((await status(again)).mode).toBe('setup');
    expect((await events(again)).filter((e) => e.type === 'licence.trial_started')).toHaveLength(1);
  });

  it('without credentials nothing is installed: 401', async () => {
    const { s } = await server();
    const r = await s.app.inject({ method: 'POST', url: '/v1/licence', payload: { licence: 'x' } });
    expect(r.statusCode).toBe(401);
  });
});

describe('a moved install (the host identity changed)', () => {
  it('is recorded, and this install is a candidate: setup under a licence that lists the old fingerprint, operating under a site licence', async () => {
    const { s: first } = await server();
    expect((await post(first, issuer.licence(here()))).statusCode).toBe(200);
    const dir = first.dir;
    await first.stop();
    s = null;
    writeFileSync(join(dir, 'machine-id'), '0a1b2c3d4e5f60718293a4b5c6d7e8f9\n');
    const { s: moved } = await server({}, createFakeClock(START), dir);
    const st = await status(moved);
    expect(st.mode).toBe('setup');
    expect(String(st.licence?.['why'])).toMatch(/is not on the licence/);
    const ev = (await events(moved)).find((e) => e.type === 'licence.install.moved');
    expect(ev?.data).toMatchObject({
      from: THIS,
      to: fingerprintOf('0a1b2c3d4e5f60718293a4b5c6d7e8f9', 'machine-id'),
    });
    // The raw machine ids never reach the ledger.
    const all = JSON.stringify(await events(moved, ''));
    expect(all).not.toContain(MACHINE_ID);
    expect(all).not.toContain('0a1b2c3d4e5f60718293a4b5c6d7e8f9');
    // A site licence covers any install.
    expect(
      (await post(moved, issuer.licence(here({ serial: 2, site: { name: 'Example site' } }))))
        .statusCode,
    ).toBe(200);
    expect((await status(moved)).mode).toBe('configuring');
  });
});

describe('a mounted licence file (SVC_LICENCE)', () => {
  it('is file-managed: POST and DELETE answer 409 with the path; a corrupt edit keeps the licence and is recorded', async () => {
    const made = await server();
    await made.s.stop();
    const dir = made.s.dir;
    s = null;
    const file = join(dir, 'licence-mounted.json');
    const p = here();
    writeFileSync(file, JSON.stringify(issuer.licence(p)));
    const { s: t } = await server({}, createFakeClock(START), dir);
    expect((await status(t)).licence).toMatchObject({ kind: 'licence', file_mounted: file });
    for (const r of [
      await post(t, issuer.licence(here())),
      await t.app.inject({ method: 'DELETE', url: '/v1/licence', headers: auth }),
    ]) {
      expect(r.statusCode).toBe(409);
      expect(r.json()).toMatchObject({ error: 'licence_file_mounted', path: file });
    }
    writeFileSync(file, '{"format":"svc-licence/1",');
    await t.runtime.licence.tick();
    await t.runtime.licence.tick(); // the same bad text is recorded once
    expect((await status(t)).mode).toBe('configuring');
    const refused = (await events(t)).filter((e) => e.type === 'licence.refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]?.data).toMatchObject({ source: 'file', check: 'format' });
    // A good edit (a renewal, serial 2) is picked up by the next tick.
    writeFileSync(
      file,
      JSON.stringify(issuer.licence({ ...p, serial: 2, expires_at: '2028-01-01T00:00:00.000Z' })),
    );
    await t.runtime.licence.tick();
    expect((await events(t)).at(-1)).toMatchObject({
      type: 'licence.replaced',
      data: { source: 'file', serial: 2 },
    });
  });
});

describe('expiry at effective time', () => {
  it('warns, enters grace (everything works), then lapses to setup with the 503 body', async () => {
    const { s, clock } = await server();
    const p = here({
      expires_at: new Date(Date.parse(START) + 40 * DAY).toISOString(),
      grace_days: 30,
    });
    expect((await post(s, issuer.licence(p))).statusCode).toBe(200);
    clock.advance(20 * DAY);
    await s.runtime.licence.tick();
    expect((await status(s)).licence).toMatchObject({ stage: 'expiring', in_grace: false });
    clock.advance(20 * DAY);
    await s.runtime.licence.tick();
    const inGrace = await status(s);
    expect(inGrace.licence).toMatchObject({ stage: 'in_grace', in_grace: true, valid: true });
    expect(inGrace.mode).toBe('configuring');
    clock.advance(30 * DAY);
    await s.runtime.licence.tick();
    const lapsed = await status(s);
    expect(lapsed.mode).toBe('setup');
    expect(lapsed.licence).toMatchObject({ stage: 'lapsed', valid: false });
    const r = await s.app.inject({ url: '/v1/episodes', headers: auth });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toEqual({ error: 'not operating yet', mode: 'setup' });
    const types = (await events(s)).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'licence.expiring',
        'licence.grace_entered',
        'licence.lapsed',
        'licence.mode_changed',
      ]),
    );
    expect(types.filter((t) => t === 'licence.lapsed')).toHaveLength(1);
  });

  it('a clock turned back past the tolerance is recorded once and extends nothing; within it, nothing', async () => {
    const { s, clock } = await server({ SVC_CLOCK_TOLERANCE_S: '3600' });
    const p = here({
      expires_at: new Date(Date.parse(START) + 10 * DAY).toISOString(),
      grace_days: 1,
    });
    expect((await post(s, issuer.licence(p))).statusCode).toBe(200);
    clock.advance(12 * DAY);
    await s.runtime.licence.tick();
    expect((await status(s)).mode).toBe('setup');
    clock.advance(-3599_000);
    await s.runtime.licence.tick();
    expect((await events(s)).filter((e) => e.type === 'licence.clock_backwards')).toHaveLength(0);
    clock.advance(-7 * DAY);
    await s.runtime.licence.tick();
    await s.runtime.licence.tick();
    const back = (await events(s)).filter((e) => e.type === 'licence.clock_backwards');
    expect(back).toHaveLength(1);
    expect(Number(back[0]?.data['by_s'])).toBeGreaterThan(7 * 86_400);
    expect((await status(s)).mode).toBe('setup'); // still lapsed at effective time
  });
});

describe('revocation lists (SVC_REVOCATION_FILE)', () => {
  it('a revoked licence goes to setup at once; a list with a lower seq is ignored and recorded', async () => {
    const made = await server();
    const dir = made.s.dir;
    const file = join(dir, 'revocations.json');
    await made.s.stop();
    s = null;
    const p = here();
    const { s: t } = await server({ SVC_REVOCATION_FILE: file }, createFakeClock(START), dir);
    expect((await post(t, issuer.licence(p))).statusCode).toBe(200);
    writeFileSync(
      file,
      JSON.stringify(
        issuer.revocations({
          seq: 5,
          issued_at: START,
          licences: [{ licence_id: p.licence_id, reason: 'revoked' }],
          keys: [],
          grants: [],
        }),
      ),
    );
    await t.runtime.licence.tick();
    expect((await status(t)).mode).toBe('setup');
    expect((await status(t)).licence).toMatchObject({
      valid: false,
      why: 'the licence has been revoked',
    });
    writeFileSync(
      file,
      JSON.stringify(
        issuer.revocations({ seq: 4, issued_at: START, licences: [], keys: [], grants: [] }),
      ),
    );
    await t.runtime.licence.tick();
    expect((await status(t)).mode).toBe('setup');
    const types = (await events(t)).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'licence.revocations_updated',
        'licence.revoked',
        'licence.revocations_rollback_ignored',
      ]),
    );
    // A revoked licence cannot be installed again.
    expect((await post(t, issuer.licence(p))).json()).toMatchObject({ check: 'revoked' });
  });
});
