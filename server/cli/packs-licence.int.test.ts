// Packs the licence opens (licence.md §3.3 features.packs, case 56): a licence that opens one
// of the built-in packs leaves the others out of what investigations run, doctor's Packs /
// licence says which are closed and why, and `svc-core packs list` (the bundle, on the same
// data folder) marks each. The offline trial opens every pack; a lapsed licence none.
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../install/index.js';
import type { LicencePayload } from '../licence/index.js';
import { createFakeClock } from '../shared/clock.js';
import { createTestIssuer, licencePayload, productionInstall } from '../testing/licence/issuer.js';
import { requireBundle, runCli } from '../testing/processes.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../testing/test-server.js';

requireBundle();

const THIS = fingerprintOf('5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c', 'machine-id');
const START = '2026-11-27T12:00:00.000Z';
const DAY = 86_400_000;
const issuer = createTestIssuer();
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const BUILT_IN = [
  'change',
  'config',
  'host-disk',
  'host-resources',
  'host',
  'http',
  'nginx',
  'postgresql',
];

const opening = (over: Partial<LicencePayload>): LicencePayload =>
  licencePayload(START, {
    installs: [productionInstall(THIS, START)],
    ...over,
  });

let s: TestServer | null = null;
afterEach(async () => {
  await s?.cleanup();
  s = null;
});

async function doctorCheck(t: TestServer) {
  const r = await t.app.inject({ url: '/v1/doctor?fresh=1', headers: auth });
  const body = r.json<{
    checks: { area: string; check: string; status: string; detail: string }[];
  }>();
  return body.checks.find((c) => c.area === 'Packs' && c.check === 'licence');
}

interface ListJson {
  packs: { id: string; opened: boolean; why: string | null }[];
}

describe('packs the licence opens', () => {
  it('a licence opening http only: the others are closed at run time, in doctor and in packs list', async () => {
    const clock = createFakeClock(START);
    s = await buildTestServer({ env: { SVC_TRIAL: '0' }, clock });
    // No licence: setup runs nothing, and every pack is closed for want of one.
    expect(s.acting.packs.packs()).toEqual([]);
    expect(s.acting.packs.closed()[0]?.why).toBe('no licence');

    const licence = issuer.licence(opening({ features: { keychain: true, packs: ['http'] } }));
    const posted = await s.app.inject({
      method: 'POST',
      url: '/v1/licence',
      headers: auth,
      payload: { licence },
    });
    expect(posted.statusCode).toBe(200);
    expect(s.acting.packs.packs().map((p) => p.id)).toEqual(['http']);
    expect(s.acting.packs.get('nginx')).toBeNull();
    expect(s.acting.packs.closed().map((c) => [c.id, c.why])).toEqual(
      BUILT_IN.filter((id) => id !== 'http').map((id) => [id, 'not in licence.features.packs']),
    );
    const check = await doctorCheck(s);
    expect(check?.status).toBe('ok');
    expect(check?.detail).toContain('nginx v2 (not in licence.features.packs)');
    expect(check?.detail).toContain(`1 of ${String(BUILT_IN.length)} open`);

    const list = await runCli(s.env, ['packs', 'list', '--json']);
    const body = JSON.parse(list.stdout) as ListJson;
    expect(body.packs.find((p) => p.id === 'http')).toMatchObject({ opened: true, why: null });
    expect(body.packs.find((p) => p.id === 'nginx')).toMatchObject({
      opened: false,
      why: 'not in licence.features.packs',
    });
    const text = await runCli(s.env, ['packs', 'list']);
    expect(text.stdout).toMatch(
      /\nnginx v2 .*; opened: no \(why: not in licence\.features\.packs\)\n/,
    );
    expect(text.stdout).toMatch(/\nhttp v2 .*; opened: yes\n/);

    // Past expiry and grace: every pack closed because the licence lapsed; doctor warns.
    clock.advance(366 * DAY + 31 * DAY);
    await s.runtime.licence.tick();
    expect(s.acting.packs.packs()).toEqual([]);
    expect(new Set(s.acting.packs.closed().map((c) => c.why))).toEqual(new Set(['licence lapsed']));
    const lapsed = await doctorCheck(s);
    expect(lapsed?.status).toBe('warn');
    expect(lapsed?.detail).toContain('http v2 (licence lapsed)');
  });

  it("'*' and the offline trial open every pack", async () => {
    s = await buildTestServer({ clock: createFakeClock(START) });
    expect(
      s.acting.packs
        .packs()
        .map((p) => p.id)
        .sort(),
    ).toEqual([...BUILT_IN].sort());
    expect(s.acting.packs.closed()).toEqual([]);
    expect((await doctorCheck(s))?.status).toBe('ok');
    const list = JSON.parse((await runCli(s.env, ['packs', 'list', '--json'])).stdout) as ListJson;
    expect(list.packs.every((p) => p.opened)).toBe(true);
    await s.cleanup();

    s = await buildTestServer({ env: { SVC_TRIAL: '0' }, clock: createFakeClock(START) });
    const posted = await s.app.inject({
      method: 'POST',
      url: '/v1/licence',
      headers: auth,
      payload: { licence: issuer.licence(opening({})) },
    });
    expect(posted.statusCode).toBe(200);
    expect(s.acting.packs.closed()).toEqual([]);
    expect(s.acting.packs.packs()).toHaveLength(BUILT_IN.length);
  });
});
