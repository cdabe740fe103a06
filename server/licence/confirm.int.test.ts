// Confirmation with the licence authority through the real server and a real HTTPS test
// authority on loopback (e2e/authority/authority.ts): POST /v1/licence/check and its ledger
// event, the check request, auto/strict/offline (design licence.md §4.2 cases 16–20), pins
// right, wrong and backup, HTTPS_PROXY through a CONNECT proxy, forward-jump recovery (case 14),
// doctor's Licence / confirmation by mode, and confirmed_at in the status.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuthority, type TestAuthority } from '../../e2e/authority/authority.js';
import { startConnectProxy } from '../../e2e/authority/connect-proxy.js';
import { fingerprintOf } from '../install/index.js';
import { createFakeClock } from '../shared/clock.js';
import { productionInstall } from '../testing/licence/issuer.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../testing/test-server.js';
import { postToAuthority, type LicencePayload } from './index.js';

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const START = '2026-11-27T12:00:00.000Z';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

let authority: TestAuthority;
beforeAll(async () => {
  authority = await startTestAuthority();
});
afterAll(async () => {
  await authority.close();
});

let s: TestServer | null = null;
afterEach(async () => {
  authority.behave({});
  authority.setTime(null);
  await s?.cleanup();
  s = null;
});

const thisInstall = () => productionInstall(THIS, START);

/** A server whose licence the authority issued (for this install), installed at START. */
async function licensed(
  env: Record<string, string> = {},
  over: Partial<LicencePayload> = {},
  clock = createFakeClock(START),
) {
  authority.setTime(START);
  const { payload, envelope } = authority.issue({ installs: [thisInstall()], ...over });
  s = await buildTestServer({
    env: {
      SVC_TRIAL: '0',
      SVC_AUTHORITY_URL: authority.url,
      SVC_CA_BUNDLE: authority.caBundle,
      ...env,
    },
    clock,
  });
  const r = await s.app.inject({
    method: 'POST',
    url: '/v1/licence',
    headers: auth,
    payload: { licence: JSON.stringify(envelope) },
  });
  expect(r.statusCode, r.body).toBe(200);
  return { s, clock, payload };
}

interface CheckBody {
  result: string;
  confirmed: boolean;
  detail: string;
  mode: string;
  latency_ms: number;
  authority_time: string | null;
  latest_serial: number | null;
  licence: Record<string, unknown> | null;
}
const check = async (t: TestServer) => {
  const r = await t.app.inject({ method: 'POST', url: '/v1/licence/check', headers: auth });
  expect(r.statusCode, r.body).toBe(200);
  return r.json<CheckBody>();
};
const status = async (t: TestServer) =>
  (await t.app.inject({ url: '/v1/status' })).json<{
    mode: string;
    licence: Record<string, unknown> | null;
  }>();
const events = async (t: TestServer, prefix = 'licence.') =>
  (
    await t.app.inject({ url: `/v1/ledger?type=${prefix}&order=asc&limit=500`, headers: auth })
  ).json<{ events: { type: string; ts: string; data: Record<string, unknown> }[] }>().events;
const doctorLicence = async (t: TestServer) => {
  const r = await t.app.inject({ url: '/v1/doctor?fresh=1', headers: auth });
  const body = r.json<{
    checks: { area: string; check: string; status: string; detail: string; hint: string }[];
  }>();
  const c = body.checks.find((x) => x.area === 'Licence' && x.check === 'confirmation');
  if (c === undefined) throw new Error('no Licence / confirmation check');
  return c;
};

describe('POST /v1/licence/check', () => {
  it('sends a svc-check/1 request, accepts the signed confirmation, records licence.check and shows confirmed_at', async () => {
    const { s, clock, payload } = await licensed();
    clock.advance(5 * 60_000);
    authority.setTime(clock.nowIso());
    const before = authority.checks.length;
    const body = await check(s);
    expect(body).toMatchObject({
      result: 'ok',
      confirmed: true,
      mode: 'auto',
      authority_time: clock.nowIso(),
      latest_serial: 1,
    });
    expect(authority.checks).toHaveLength(before + 1);
    const req = authority.checks.at(-1);
    expect(req).toMatchObject({
      format: 'svc-check/1',
      licence_id: payload.licence_id,
      serial: 1,
      fingerprint: THIS,
      mode: 'auto',
      revocations_seq: 1, // the bundled list
      sent_at: clock.nowIso(),
    });
    expect(req?.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(req?.install_pub).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const evs = (await events(s)).filter((e) => e.type === 'licence.check');
    expect(evs).toHaveLength(1);
    expect(evs[0]?.data).toMatchObject({
      trigger: 'api',
      result: 'ok',
      confirmed: true,
      authority_time: clock.nowIso(),
    });
    expect(typeof evs[0]?.data['latency_ms']).toBe('number');
    expect((await status(s)).licence).toMatchObject({
      confirmed_at: clock.nowIso(),
      check: 'auto',
    });
  });

  it('is for the owner only', async () => {
    s = await buildTestServer({ env: { SVC_TRIAL: '0' } });
    const r = await s.app.inject({ method: 'POST', url: '/v1/licence/check' });
    expect(r.statusCode).toBe(401);
  });

  it('case 19: a replayed confirmation, a wrong nonce, a bad signature and another fingerprint are ignored and recorded', async () => {
    const { s } = await licensed();
    expect((await check(s)).result).toBe('ok');
    const good = authority.answers.length - 1; // a good confirmation, to replay
    const cases: [Parameters<TestAuthority['behave']>[0], string][] = [
      [{ wrong_nonce: true }, 'wrong_nonce'],
      [{ bad_signature: true }, 'bad_signature'],
      [{ other_fingerprint: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF' }, 'wrong_fingerprint'],
      [{ replay: good }, 'wrong_nonce'],
    ];
    const confirmedAt = (await status(s)).licence?.['confirmed_at'];
    for (const [b, result] of cases) {
      authority.behave(b);
      const body = await check(s);
      expect(body, result).toMatchObject({ result, confirmed: false });
      expect(body.detail).toContain('ignored');
    }
    expect((await status(s)).licence?.['confirmed_at']).toBe(confirmedAt);
    const results = (await events(s))
      .filter((e) => e.type === 'licence.check')
      .map((e) => e.data['result']);
    expect(results).toEqual([
      'ok',
      'wrong_nonce',
      'bad_signature',
      'wrong_fingerprint',
      'wrong_nonce',
    ]);
  });

  it('case 20: a newer licence and a newer revocation list in the answer are applied through the same verifiers; an older serial is refused', async () => {
    const { s, payload } = await licensed();
    authority.issue({ licence_id: payload.licence_id }); // serial 2
    const other = authority.issue({ installs: [thisInstall()] });
    authority.revoke({ licence_id: other.payload.licence_id }); // seq 2, not ours
    const body = await check(s);
    expect(body).toMatchObject({ result: 'superseded', confirmed: true, latest_serial: 2 });
    expect(body.licence).toMatchObject({ serial: 2, valid: true, source: 'authority' });
    authority.behave({ serve_licence_serial: 1 });
    const older = await check(s);
    expect(older.result).toBe('ok');
    expect(older.detail).toContain('refused');
    expect(older.licence).toMatchObject({ serial: 2 });
    const evs = await events(s);
    expect(evs.find((e) => e.type === 'licence.replaced')?.data).toMatchObject({
      source: 'authority',
      serial: 2,
    });
    expect(evs.find((e) => e.type === 'licence.revocations_updated')?.data).toMatchObject({
      seq: 2,
      source: 'authority',
    });
    expect(evs.find((e) => e.type === 'licence.refused')?.data).toMatchObject({
      check: 'rollback',
    });
  });

  it('a revocation learnt online applies at once: setup mode and licence.revoked', async () => {
    const { s, payload } = await licensed();
    authority.revoke({ licence_id: payload.licence_id });
    expect(await check(s)).toMatchObject({ result: 'revoked', confirmed: false });
    const st = await status(s);
    expect(st.mode).toBe('setup');
    expect(st.licence).toMatchObject({ valid: false, why: 'the licence has been revoked' });
    expect((await events(s)).map((e) => e.type)).toContain('licence.revoked');
  });
});

describe('modes', () => {
  it('case 18: offline never opens a socket, at start or on request; doctor says offline by choice', async () => {
    const before = authority.server.connections;
    const { s } = await licensed({ SVC_LICENCE_CHECK: 'offline' });
    await new Promise((r) => setTimeout(r, 50)); // the start check would have run by now
    const body = await check(s);
    expect(body).toMatchObject({ result: 'offline', confirmed: false, mode: 'offline' });
    expect(authority.server.connections).toBe(before);
    const doc = await doctorLicence(s);
    expect(doc.status).toBe('ok');
    expect(doc.detail).toContain('offline by choice');
    // Recorded all the same: the owner asked.
    expect(
      (await events(s)).filter((e) => e.type === 'licence.check').map((e) => e.data['result']),
    ).toEqual(['offline']);
  });

  it("the licence's check.min_mode is a floor: offline configured, auto required, auto it is", async () => {
    const { s } = await licensed(
      { SVC_LICENCE_CHECK: 'offline' },
      { check: { min_mode: 'auto', max_unconfirmed_days: null } },
    );
    expect(await check(s)).toMatchObject({ result: 'ok', mode: 'auto' });
    expect((await status(s)).licence).toMatchObject({ check: 'auto' });
  });

  it('case 16: auto with the authority down never changes the mode; doctor ok, warn at 24 h, "choose offline?" at 7 d', async () => {
    const { s, clock } = await licensed();
    expect((await check(s)).result).toBe('ok');
    authority.behave({ drop_connection: true });
    expect(await check(s)).toMatchObject({ result: 'unreachable', confirmed: false });
    const fine = await doctorLicence(s);
    expect(fine.status).toBe('ok');
    // auto asks for newer revocation lists, so doctor says how old the one held is.
    expect(fine.detail).toMatch(/Revocation list seq \d+, issued \d{4}-/);
    clock.advance(24 * HOUR - 60_000);
    await s.runtime.licence.tick();
    expect((await doctorLicence(s)).status).toBe('ok');
    clock.advance(60_000);
    await s.runtime.licence.tick();
    let doc = await doctorLicence(s);
    expect(doc.status).toBe('warn');
    expect(doc.hint).not.toContain('choose offline');
    clock.advance(6 * DAY);
    await s.runtime.licence.tick();
    doc = await doctorLicence(s);
    expect(doc).toMatchObject({ status: 'warn' });
    expect(doc.hint).toContain('choose offline?');
    expect((await status(s)).mode).toBe('configuring');
    // Only the install's own setup → licensed, never a change from the checks.
    expect((await events(s)).filter((e) => e.type === 'licence.mode_changed')).toHaveLength(1);
  });

  it('a licence asking to be confirmed within 2 days: auto stops operating after 2 days unconfirmed and operates again on the next confirmation', async () => {
    const over = { check: { min_mode: 'auto' as const, max_unconfirmed_days: 2 } };
    const { s, clock } = await licensed({}, over);
    expect((await check(s)).result).toBe('ok');
    const confirmedAt = clock.now();
    authority.behave({ drop_connection: true });
    clock.set(new Date(confirmedAt + 47 * HOUR).toISOString());
    await s.runtime.licence.tick();
    expect((await status(s)).mode).toBe('configuring');
    clock.set(new Date(confirmedAt + 48 * HOUR + 1000).toISOString());
    await s.runtime.licence.tick();
    const st = await status(s);
    expect(st.mode).toBe('setup');
    expect(String(st.licence?.['why'])).toContain(
      'the licence asks to be confirmed regularly: not confirmed by the licence authority for more than 2 days',
    );
    authority.behave({});
    authority.setTime(clock.nowIso());
    expect(await check(s)).toMatchObject({ result: 'ok', confirmed: true });
    expect((await status(s)).mode).toBe('configuring');
  });

  it('case 17: strict operates at 71 h 59 m unconfirmed, is setup at 72 h 00 m 01 s, and operates again on the next confirmation', async () => {
    const { s, clock } = await licensed({ SVC_LICENCE_CHECK: 'strict' });
    expect((await check(s)).result).toBe('ok');
    const confirmedAt = clock.now();
    authority.behave({ drop_connection: true });
    clock.advance(24 * HOUR + 1000);
    await s.runtime.licence.tick();
    expect((await doctorLicence(s)).status).toBe('warn');
    clock.set(new Date(confirmedAt + 71 * HOUR + 59 * 60_000).toISOString());
    await s.runtime.licence.tick();
    expect((await status(s)).mode).toBe('configuring');
    clock.set(new Date(confirmedAt + 72 * HOUR + 1000).toISOString());
    await s.runtime.licence.tick();
    let st = await status(s);
    expect(st.mode).toBe('setup');
    expect(st.licence).toMatchObject({ valid: false, check: 'strict' });
    expect(String(st.licence?.['why'])).toContain(
      'not confirmed by the licence authority for more than 72 hours',
    );
    const doc = await doctorLicence(s);
    expect(doc.status).toBe('fail');
    const gated = await s.app.inject({ url: '/v1/episodes', headers: auth });
    expect(gated.statusCode).toBe(503);

    authority.behave({});
    authority.setTime(clock.nowIso());
    expect(await check(s)).toMatchObject({ result: 'ok', confirmed: true });
    st = await status(s);
    expect(st.mode).toBe('configuring');
    expect(st.licence).toMatchObject({ valid: true, confirmed_at: clock.nowIso() });
    const modes = (await events(s))
      .filter((e) => e.type === 'licence.mode_changed')
      .map((e) => [e.data['from'], e.data['to']]);
    expect(modes).toEqual([
      ['setup', 'licensed'], // the install
      ['licensed', 'setup'],
      ['setup', 'licensed'],
    ]);
  });

  it('strict counts from the install when never confirmed', async () => {
    const { s, clock } = await licensed({ SVC_LICENCE_CHECK: 'strict' });
    clock.advance(72 * HOUR + 1000);
    await s.runtime.licence.tick();
    expect((await status(s)).mode).toBe('setup');
  });
});

describe('clock', () => {
  it('case 14: after a jump forward and back, signed authority time resets the high-water mark (clock_reset {source: authority})', async () => {
    const { s, clock } = await licensed({ SVC_CLOCK_TOLERANCE_S: '3600' });
    clock.advance(400 * DAY); // past expiry and grace
    await s.runtime.licence.tick();
    clock.set(new Date(Date.parse(START) + HOUR).toISOString());
    await s.runtime.licence.tick();
    expect((await status(s)).licence).toMatchObject({ stage: 'lapsed', valid: false });
    authority.setTime(clock.nowIso());
    expect(await check(s)).toMatchObject({ result: 'ok', confirmed: true });
    const st = await status(s);
    expect(st.licence).toMatchObject({ stage: 'valid', valid: true });
    expect(st.mode).toBe('configuring');
    const reset = (await events(s)).filter((e) => e.type === 'licence.clock_reset');
    expect(reset).toHaveLength(1);
    expect(reset[0]?.data).toMatchObject({ source: 'authority', to: clock.nowIso() });
    // A second confirmation at the same time resets nothing more.
    expect((await check(s)).result).toBe('ok');
    expect((await events(s)).filter((e) => e.type === 'licence.clock_reset')).toHaveLength(1);
  });

  it('authority time within the tolerance of the mark resets nothing', async () => {
    const { s, clock } = await licensed({ SVC_CLOCK_TOLERANCE_S: '3600' });
    clock.advance(HOUR);
    await s.runtime.licence.tick();
    authority.setTime(new Date(clock.now() - 3599_000).toISOString());
    expect((await check(s)).result).toBe('ok');
    expect((await events(s)).map((e) => e.type)).not.toContain('licence.clock_reset');
  });
});

describe('network', () => {
  it('pins: the right leaf pin and a backup pin confirm; a wrong pin is pin_mismatch listing what was seen, audited', async () => {
    const wrong = `sha256/${Buffer.alloc(32, 7).toString('base64')}`;
    const { s } = await licensed({ SVC_AUTHORITY_PINS: authority.pins.leaf });
    expect((await check(s)).result).toBe('ok');
    await s.cleanup();
    const backup = await licensed({ SVC_AUTHORITY_PINS: `${wrong},${authority.pins.root}` });
    expect((await check(backup.s)).result).toBe('ok');
    await backup.s.cleanup();
    const bad = await licensed({ SVC_AUTHORITY_PINS: wrong });
    const body = await check(bad.s);
    expect(body).toMatchObject({ result: 'pin_mismatch', confirmed: false });
    expect(body.detail).toContain(authority.pins.leaf);
    const mism = (await events(bad.s)).filter((e) => e.type === 'licence.pin_mismatch');
    expect(mism).toHaveLength(1);
    expect(mism[0]?.data['seen']).toEqual([
      authority.pins.leaf,
      authority.pins.intermediate,
      authority.pins.root,
    ]);
  });

  it('without SVC_CA_BUNDLE the private CA is not trusted: tls_error, recorded', async () => {
    authority.setTime(START);
    const { envelope } = authority.issue({ installs: [thisInstall()] });
    s = await buildTestServer({
      env: { SVC_TRIAL: '0', SVC_AUTHORITY_URL: authority.url },
      clock: createFakeClock(START),
    });
    await s.app.inject({
      method: 'POST',
      url: '/v1/licence',
      headers: auth,
      payload: { licence: JSON.stringify(envelope) },
    });
    const body = await check(s);
    expect(body.result).toBe('tls_error');
    expect(body.detail).toContain('SVC_CA_BUNDLE');
  });

  it('HTTPS_PROXY: the check goes through the CONNECT proxy; NO_PROXY naming the authority goes direct', async () => {
    const proxy = await startConnectProxy();
    try {
      const { s } = await licensed({ HTTPS_PROXY: proxy.url });
      expect((await check(s)).result).toBe('ok');
      expect(proxy.connects).toBe(1);
      expect(proxy.targets[0]).toBe(`127.0.0.1:${String(authority.server.port)}`);
      await s.cleanup();
      const direct = await licensed({ HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
      expect((await check(direct.s)).result).toBe('ok');
      expect(proxy.connects).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('a silent authority: the check ends as a timeout within its cap and is recorded', async () => {
    const { s } = await licensed();
    authority.behave({ delay_ms: 1500 });
    const t0 = Date.now();
    const body = await s.runtime.confirm.checkNow(300);
    expect(Date.now() - t0).toBeLessThan(1400);
    expect(body).toMatchObject({ result: 'timeout', confirmed: false });
    expect((await events(s)).filter((e) => e.type === 'licence.check').at(-1)?.data).toMatchObject({
      trigger: 'api',
      result: 'timeout',
    });
  });
});

describe('the test authority', () => {
  it('its admin hooks answer over HTTPS: /_test/behaviour sets the status, /_test/time its clock', async () => {
    const { s, clock } = await licensed();
    const admin = {
      authorityUrl: authority.url,
      authorityPins: [],
      caBundle: authority.caBundle,
      httpsProxy: null,
      noProxy: null,
    };
    const at = new Date(clock.now() + 60_000).toISOString();
    expect(await postToAuthority(admin, '/_test/time', { iso: at })).toMatchObject({ ok: true });
    expect(
      await postToAuthority(admin, '/_test/behaviour', { status: 'unknown_install' }),
    ).toMatchObject({ ok: true, status: 200 });
    expect(await check(s)).toMatchObject({
      result: 'unknown_install',
      confirmed: false,
      authority_time: at,
    });
  });
});

describe('at start', () => {
  it('a server that starts with a licence asks once, off the request path (trigger start)', async () => {
    const clock = createFakeClock(START);
    const { s: first } = await licensed({}, {}, clock);
    const dir = first.dir;
    await first.stop();
    s = null;
    const before = authority.checks.length;
    s = await buildTestServer({
      env: { SVC_TRIAL: '0', SVC_AUTHORITY_URL: authority.url, SVC_CA_BUNDLE: authority.caBundle },
      clock,
      dir,
    });
    for (let i = 0; i < 100 && authority.checks.length === before; i += 1)
      await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 100; i += 1) {
      if ((await events(s)).some((e) => e.type === 'licence.check')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const evs = (await events(s)).filter((e) => e.type === 'licence.check');
    expect(evs.map((e) => [e.data['trigger'], e.data['result']])).toEqual([['start', 'ok']]);
  });
});
