// The ask / look / vouch / poll / remove exchange through two real servers with separate data
// folders and no network between them (licence.md §3.7, cases 38–47): N, a new install, asks;
// its text and code are carried to E, an install on the licence, which looks and vouches; the
// grant text goes back to N, which installs it. Wrong codes, replays, edited texts, expired
// requests, requests for another licence, full seats, refused grants, removal and the `can`
// matrix, each with the events it records.
import { createSocket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../shared/clock.js';
import { newUlid } from '../../shared/ids.js';
import type { LicencePayload } from '../document/licence-doc.js';
import {
  createTestIssuer,
  licencePayload,
  productionInstall,
} from '../../testing/licence/issuer.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../../testing/test-server.js';
import {
  adminCall,
  E_FP,
  hostWith,
  N_FP,
  N_MACHINE,
  type Json,
} from '../../testing/licence/two-installs.js';
import { installPubOf } from './install-pub.js';
import { readForward } from './forward.js';
import { buildRequest } from './request.js';
import { generateKeyPairSync } from 'node:crypto';

const START = '2026-11-27T12:00:00.000Z';
const DAY = 86_400_000;
const issuer = createTestIssuer();
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.cleanup();
});

const call = adminCall;
const events = async (s: TestServer, type: string) =>
  (
    (await call(s, 'GET', `/v1/ledger?type=${type}&limit=100`)).body as {
      events: { type: string; actor: string; data: Json }[];
    }
  ).events;

/** E (on the licence, with its real install_pub) and N (a new install with no licence). */
async function pair(
  over: Partial<LicencePayload> = {},
  others: number = 0,
  eEnv: Record<string, string> = {},
) {
  const eClock = createFakeClock(START);
  const nClock = createFakeClock(START);
  const e = await buildTestServer({ env: { SVC_TRIAL: '0', ...eEnv }, clock: eClock });
  servers.push(e);
  const nDir = hostWith(N_MACHINE);
  const n = await buildTestServer({ env: { SVC_TRIAL: '0' }, clock: nClock, dir: nDir });
  servers.push(n);
  const key = e.runtime.keyFor('ed25519');
  if (key === null) throw new Error('no install key on E');
  const filler = Array.from({ length: others }, (_, i) =>
    productionInstall(`AAAA-BBBB-CCCC-DDDD-EEEE-${'ABCDEFGHIJ'.charAt(i).repeat(4)}`, START, {
      label: `other-${String(i)}`,
      role: 'lab',
    }),
  );
  const payload = licencePayload(START, {
    installs: [productionInstall(E_FP, START, { install_pub: installPubOf(key) }), ...filler],
    ...over,
  });
  const installed = await call(e, 'POST', '/v1/licence', { licence: issuer.licence(payload) });
  expect(installed.status, JSON.stringify(installed.body)).toBe(200);
  return { e, n, eClock, nClock, payload };
}

async function ask(n: TestServer, purpose = 'dr', label = 'dr-site-b') {
  const r = await call(n, 'POST', '/v1/licence/installs/ask', { purpose, label });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { req_id: string; code: string; text: string; expires_at: string };
}

const wrongCode = (code: string) =>
  `${String((Number(code.replace(' ', '')) + 1) % 1_000_000).padStart(6, '0')}`;

describe('the install exchange between two installs', () => {
  it('38: ask on N, look and vouch on E, the grant installed on N; E’s usage lists the grant', async () => {
    const { e, n } = await pair();
    expect((await call(n, 'GET', '/v1/status')).body['mode']).toBe('setup');
    const asked = await ask(n);
    expect(asked.code).toMatch(/^\d{3} \d{3}$/);
    expect(asked.text).toContain('-----BEGIN SVC INSTALL REQUEST-----');
    expect(asked.text).toContain(`Fingerprint: ${N_FP}`);
    expect(asked.text).toContain(`Code: ${asked.code}`);

    const look = await call(e, 'POST', '/v1/licence/installs/look', { text: asked.text });
    expect(look.status).toBe(200);
    expect(look.body['digits']).toBe(asked.code);
    const checks = look.body['checks'] as { name: string; ok: boolean }[];
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(look.body).toMatchObject({
      would: 'granted',
      request: { req_id: asked.req_id, fingerprint: N_FP, purpose: 'dr', label: 'dr-site-b' },
    });

    const vouched = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: asked.code.replace(' ', ''),
    });
    expect(vouched.status, JSON.stringify(vouched.body)).toBe(200);
    expect(vouched.body).toMatchObject({ result: 'granted', fingerprint: N_FP, role: 'dr' });
    const grant = String(vouched.body['text']);
    expect(grant).toContain('-----BEGIN SVC INSTALL GRANT-----');

    const accepted = await call(n, 'POST', '/v1/licence', { licence: grant });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const status = (await call(n, 'GET', '/v1/status')).body as {
      mode: string;
      licence: { valid: boolean; vouched_until: string | null };
    };
    expect(status.mode).not.toBe('setup');
    expect(status.licence.valid).toBe(true);
    expect(status.licence.vouched_until).toBe(vouched.body['valid_until']);

    const nView = (await call(n, 'GET', '/v1/licence/installs')).body as {
      this: Json;
      outgoing: { req_id: string; status: string }[];
    };
    expect(nView.this).toMatchObject({ fingerprint: N_FP, on_licence: true, role: 'dr' });
    const nInstalls = (await call(n, 'GET', '/v1/licence/installs')).body as {
      installs: { fingerprint: string; via: string }[];
      limit: { used: number };
    };
    expect(nInstalls.installs.map((i) => [i.fingerprint, i.via])).toEqual([
      [E_FP, 'authority'],
      [N_FP, 'grant'],
    ]);
    expect(nInstalls.limit.used).toBe(2);
    expect(
      ((await call(n, 'GET', '/v1/status')).body['licence'] as { installs: number }).installs,
    ).toBe(2);
    expect(nView.outgoing).toEqual([
      expect.objectContaining({ req_id: asked.req_id, status: 'granted' }),
    ]);
    const polled = await call(n, 'POST', '/v1/licence/installs/poll');
    expect(polled.status).toBe(200);
    expect(polled.body['requests']).toEqual([
      expect.objectContaining({ req_id: asked.req_id, status: 'granted' }),
    ]);

    const eView = (await call(e, 'GET', '/v1/licence/installs')).body as {
      installs: { fingerprint: string; via: string }[];
      limit: { installs: number; used: number };
      history: { type: string }[];
    };
    expect(eView.installs.map((i) => [i.fingerprint, i.via])).toEqual([
      [E_FP, 'authority'],
      [N_FP, 'vouch'],
    ]);
    expect(eView.limit).toEqual({ installs: 10, used: 2 });
    // The status counts the seat the grant holds, as the installs view does.
    expect(
      ((await call(e, 'GET', '/v1/status')).body['licence'] as { installs: number }).installs,
    ).toBe(2);
    expect(eView.history.map((h) => h.type)).toEqual([
      'licence.install.vouched',
      'licence.install.looked',
    ]);

    const usage = (await call(e, 'GET', '/v1/licence/usage')).body as { payload: string };
    const statement = JSON.parse(Buffer.from(usage.payload, 'base64url').toString('utf8')) as {
      installs: { grants_issued: { req_id: string; fingerprint: string }[] };
    };
    expect(statement.installs.grants_issued).toEqual([
      expect.objectContaining({ req_id: asked.req_id, fingerprint: N_FP }),
    ]);

    expect((await events(n, 'licence.install.asked')).length).toBe(1);
    expect((await events(n, 'licence.install.grant_accepted'))[0]?.data).toMatchObject({
      req_id: asked.req_id,
      granted_by: E_FP,
    });
    expect((await events(n, 'licence.installed'))[0]?.data).toMatchObject({ source: 'grant' });
    expect((await events(e, 'licence.install.vouched'))[0]?.data).toMatchObject({
      req_id: asked.req_id,
      result: 'granted',
      via: 'grant',
    });
  });

  it('39: a wrong code waits half a second and answers code_mismatch; the fifth burns the request', async () => {
    const { e, n } = await pair();
    const asked = await ask(n);
    const wrong = wrongCode(asked.code);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const t0 = Date.now();
      const r = await call(e, 'POST', '/v1/licence/installs/vouch', {
        text: asked.text,
        code: wrong,
      });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(490);
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ error: 'code_mismatch' });
    }
    const fifth = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: wrong,
    });
    expect(fifth.status).toBe(409);
    expect(fifth.body['error']).toBe('request_burned');
    const right = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: asked.code,
    });
    expect(right.status).toBe(409);
    expect(right.body['error']).toBe('request_burned');
    expect(
      (await events(e, 'licence.install.code_mismatch')).map((x) => x.data['attempt']),
    ).toEqual([5, 4, 3, 2, 1]);
    expect((await events(e, 'licence.install.request_burned')).length).toBe(1);
    expect((await events(e, 'licence.install.vouched')).length).toBe(0);
  });

  it('40: the same text vouched twice, or twice at once, is granted once', async () => {
    const { e, n } = await pair();
    const first = await ask(n);
    const a = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: first.text,
      code: first.code,
    });
    expect(a.status).toBe(200);
    const again = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: first.text,
      code: first.code,
    });
    expect(again.status).toBe(409);
    expect(again.body['error']).toBe('already_vouched');
    const looked = await call(e, 'POST', '/v1/licence/installs/look', { text: first.text });
    expect(looked.body['would']).toBe('refused');
    expect(looked.body['checks']).toContainEqual(
      expect.objectContaining({ name: 'not_seen_before', ok: false }),
    );

    // N holds a grant now: asking again is refused (a second seat). A third install asks.
    const again2 = await ask(n, 'add', 'second');
    const refusedAgain = await call(e, 'POST', '/v1/licence/installs/look', { text: again2.text });
    expect(refusedAgain.body['checks']).toContainEqual(
      expect.objectContaining({ name: 'not_already_listed', ok: false }),
    );
    const m = await buildTestServer({
      env: { SVC_TRIAL: '0' },
      dir: hostWith('1234567890abcdef1234567890abcdef'),
    });
    servers.push(m);
    const second = await ask(m, 'add', 'second');
    const racing = await Promise.all(
      [0, 1, 2].map(() =>
        call(e, 'POST', '/v1/licence/installs/vouch', { text: second.text, code: second.code }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await events(e, 'licence.install.vouched')).length).toBe(2);
  });

  it('41: an edited header or one changed base64 character is flagged by look and refused by vouch', async () => {
    const { e, n } = await pair();
    const asked = await ask(n);
    const relabelled = asked.text.replace('Label: dr-site-b', 'Label: prod-site-a');
    const lookH = await call(e, 'POST', '/v1/licence/installs/look', { text: relabelled });
    expect(lookH.status).toBe(200);
    expect(lookH.body['would']).toBe('refused');
    expect(lookH.body['checks']).toContainEqual(
      expect.objectContaining({ name: 'headers_match_payload', ok: false }),
    );
    const vouchH = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: relabelled,
      code: asked.code,
    });
    expect(vouchH.status).toBe(400);
    expect(vouchH.body).toMatchObject({ error: 'request_refused' });
    expect(JSON.stringify(vouchH.body)).toContain('headers_match_payload');

    // One character of the signed payload (the first base64 line after the blank line).
    const lines = asked.text.split('\n');
    const at = lines.findIndex((l) => l === '') + 1;
    const line = lines[at] ?? '';
    lines[at] = `${line.slice(0, 10)}${line[10] === 'A' ? 'B' : 'A'}${line.slice(11)}`;
    const flipped = lines.join('\n');
    const lookS = await call(e, 'POST', '/v1/licence/installs/look', { text: flipped });
    expect(lookS.body['checks']).toContainEqual(
      expect.objectContaining({ name: 'signature', ok: false }),
    );
    const vouchS = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: flipped,
      code: asked.code,
    });
    expect(vouchS.status).toBe(400);
    expect((await events(e, 'licence.install.vouched')).length).toBe(0);
    expect((await events(e, 'licence.install.looked')).map((x) => x.data['result'])).toEqual([
      'refused',
      'refused',
    ]);
  });

  it('42: an expired request is refused; a request for another licence goes to the vendor (manual)', async () => {
    const { e, n, eClock, payload } = await pair();
    const asked = await ask(n);
    eClock.advance(8 * DAY);
    const late = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: asked.code,
    });
    expect(late.status).toBe(400);
    expect(JSON.stringify(late.body)).toContain('not_expired');

    const { privateKey } = generateKeyPairSync('ed25519');
    const other = buildRequest({
      installKey: privateKey,
      fingerprint: N_FP,
      kind: 'machine-id',
      purpose: 'move',
      label: null,
      version: '1.0.0',
      licenceId: newUlid(Date.parse(START)),
      now: eClock.now(),
    });
    const manual = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: other.text,
      code: other.code,
    });
    expect(manual.status, JSON.stringify(manual.body)).toBe(200);
    expect(manual.body['result']).toBe('manual');
    const forward = readForward(manual.body['text'], payload);
    expect(forward.ok).toBe(true);
  });

  it('44: with every seat taken, or no offline grants allowed, the answer is a forward bundle', async () => {
    const full = await pair({}, 9);
    const a = await ask(full.n);
    const look = await call(full.e, 'POST', '/v1/licence/installs/look', { text: a.text });
    expect(look.body['checks']).toContainEqual({
      name: 'seat_available',
      ok: false,
      detail: '10 of 10 installs used',
    });
    const v = await call(full.e, 'POST', '/v1/licence/installs/vouch', {
      text: a.text,
      code: a.code,
    });
    expect(v.body).toMatchObject({ result: 'manual' });
    expect(readForward(v.body['text'], full.payload).ok).toBe(true);

    const none = await pair({ vouch: { self_service: 0, grant_days: 60 } });
    const b = await ask(none.n);
    const w = await call(none.e, 'POST', '/v1/licence/installs/vouch', {
      text: b.text,
      code: b.code,
    });
    expect(w.body).toMatchObject({ result: 'manual' });
    expect(String(w.body['why'])).toContain('no offline grants left');
  });

  it('45: a grant is refused on an install that did not ask, once its request expired, and once it ended', async () => {
    const { e, n, nClock } = await pair();
    const asked = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: asked.code,
    });
    const grant = String(v.body['text']);
    // A third install that never asked.
    const mDir = hostWith('1234567890abcdef1234567890abcdef');
    const m = await buildTestServer({
      env: { SVC_TRIAL: '0' },
      dir: mDir,
      clock: createFakeClock(START),
    });
    servers.push(m);
    const stranger = await call(m, 'POST', '/v1/licence', { licence: grant });
    expect(stranger.status).toBe(400);
    expect(stranger.body).toMatchObject({ error: 'grant_refused', check: 'request_unknown' });
    expect((await events(m, 'licence.refused'))[0]?.data).toMatchObject({
      source: 'grant',
      check: 'request_unknown',
    });
    expect((await call(m, 'GET', '/v1/status')).body['mode']).toBe('setup');

    // Its request expired (7 days) before the grant (60 days): nothing open answers it.
    nClock.advance(8 * DAY);
    const late = await call(n, 'POST', '/v1/licence', { licence: grant });
    expect(late.status).toBe(400);
    expect(late.body['check']).toBe('request_unknown');
    expect((await events(n, 'licence.install.grant_accepted')).length).toBe(0);

    // A licence ending in 3 days bounds the grant; on day 4 its request is open, the grant over.
    const short = await pair({ expires_at: new Date(Date.parse(START) + 3 * DAY).toISOString() });
    const b = await ask(short.n);
    const w = await call(short.e, 'POST', '/v1/licence/installs/vouch', {
      text: b.text,
      code: b.code,
    });
    expect(w.body['valid_until']).toBe(new Date(Date.parse(START) + 3 * DAY).toISOString());
    short.nClock.advance(4 * DAY);
    const ended = await call(short.n, 'POST', '/v1/licence', { licence: w.body['text'] });
    expect(ended.status).toBe(400);
    expect(ended.body).toMatchObject({ error: 'grant_refused', check: 'expired' });
  });

  it('a grant runs until valid_until; then the install is back in setup, saying why', async () => {
    const { e, n, nClock } = await pair();
    const asked = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: asked.code,
    });
    expect((await call(n, 'POST', '/v1/licence', { licence: v.body['text'] })).status).toBe(200);
    nClock.advance(61 * DAY);
    const status = (await call(n, 'GET', '/v1/status')).body as {
      mode: string;
      licence: { valid: boolean; why: string };
    };
    expect(status.mode).toBe('setup');
    expect(status.licence.why).toContain(`the grant from ${E_FP} ended`);
  });

  it('46: removing N on E frees its seat and lists the removal in usage; E cannot remove itself', async () => {
    const { e, n } = await pair();
    const asked = await ask(n);
    await call(e, 'POST', '/v1/licence/installs/vouch', { text: asked.text, code: asked.code });
    const removed = await call(e, 'POST', '/v1/licence/installs/remove', { fingerprint: N_FP });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toMatchObject({ removed: N_FP, limit: { installs: 10, used: 1 } });
    const usage = (await call(e, 'GET', '/v1/licence/usage')).body as { payload: string };
    const statement = JSON.parse(Buffer.from(usage.payload, 'base64url').toString('utf8')) as {
      installs: { grants_issued: unknown[]; removed: { fingerprint: string; was: string }[] };
    };
    expect(statement.installs.grants_issued).toEqual([]);
    expect(statement.installs.removed).toEqual([
      expect.objectContaining({ fingerprint: N_FP, was: 'grant' }),
    ]);
    expect(removed.body['authority']).toMatchObject({ result: 'offline' });
    const self = await call(e, 'POST', '/v1/licence/installs/remove', { fingerprint: E_FP });
    expect(self.status).toBe(409);
    expect(self.body['error']).toBe('last_production');
    const unknown = await call(e, 'POST', '/v1/licence/installs/remove', { fingerprint: N_FP });
    expect(unknown.status).toBe(404);
    expect((await events(e, 'licence.install.removed')).length).toBe(1);
  });

  it('a removal holds for its serial only: a later serial listing the install again is the vendor’s word', async () => {
    const { e, payload } = await pair({}, 1);
    const other = payload.installs[1]?.fingerprint ?? '';
    const r = await call(e, 'POST', '/v1/licence/installs/remove', { fingerprint: other });
    expect(r.body).toMatchObject({ limit: { used: 1 } });
    expect(
      ((await call(e, 'GET', '/v1/status')).body['licence'] as { installs: number }).installs,
    ).toBe(1);
    const next = await call(e, 'POST', '/v1/licence', {
      licence: issuer.licence({ ...payload, serial: 2 }),
    });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(
      ((await call(e, 'GET', '/v1/status')).body['licence'] as { installs: number }).installs,
    ).toBe(2);
  });

  it('47: `can` follows the role and the state; a viewer’s call is refused naming the role', async () => {
    const { e, n } = await pair();
    // An owner first, so that Vic is not the last owner when made a viewer.
    await call(e, 'POST', '/v1/users', { email: 'olga@example.org', name: 'Olga', role: 'owner' });
    await call(e, 'POST', '/v1/auth/bootstrap', { email: 'olga@example.org', name: 'Olga' });
    const made = await call(e, 'POST', '/v1/users', {
      email: 'vic@example.org',
      name: 'Vic',
      role: 'viewer',
    });
    expect(made.status).toBe(201);
    const boot = await call(e, 'POST', '/v1/auth/bootstrap', {
      email: 'vic@example.org',
      name: 'Vic',
    });
    expect(boot.status, JSON.stringify(boot.body)).toBe(200);
    const token = String(boot.body['token']);
    const asViewer = async (method: 'GET' | 'POST', url: string, payload?: Json) => {
      const r = await e.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload !== undefined && { payload }),
      });
      return { status: r.statusCode, body: r.json<Json>() };
    };
    // Bootstrap makes an owner; the viewer role is set after.
    const id = String(made.body['id']);
    const demoted = await e.app.inject({
      method: 'PUT',
      url: `/v1/users/${id}`,
      headers: auth,
      payload: { role: 'viewer' },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    const viewer = (await asViewer('GET', '/v1/licence/installs')).body['can'] as Record<
      string,
      { allowed: boolean; why?: string }
    >;
    for (const k of ['ask', 'look', 'vouch', 'poll', 'remove'])
      expect(viewer[k], k).toEqual({
        allowed: false,
        why: 'needs the admin role (you are viewer)',
      });
    const refused = await asViewer('POST', '/v1/licence/installs/ask', { purpose: 'add' });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('admin');

    const onLicence = (await call(e, 'GET', '/v1/licence/installs')).body['can'] as Record<
      string,
      { allowed: boolean; why?: string }
    >;
    expect(onLicence['ask']).toEqual({
      allowed: false,
      why: 'this install is already on the licence',
    });
    expect(onLicence['vouch']).toEqual({ allowed: true });
    expect(onLicence['remove']).toEqual({ allowed: true });
    const candidate = (await call(n, 'GET', '/v1/licence/installs')).body as {
      can: Record<string, { allowed: boolean; why?: string }>;
      candidate: Json | null;
    };
    expect(candidate.can['ask']).toEqual({ allowed: true });
    expect(candidate.can['vouch']?.allowed).toBe(false);
    expect(candidate.can['poll']).toEqual({
      allowed: false,
      why: 'this install has asked nothing yet',
    });
    expect(candidate.candidate).toMatchObject({ fingerprint: N_FP });
    // E cannot ask (already listed); N cannot vouch (holds no licence): 409 with why.
    const eAsks = await call(e, 'POST', '/v1/licence/installs/ask', { purpose: 'add' });
    expect(eAsks.status).toBe(409);
    const nVouches = await call(n, 'POST', '/v1/licence/installs/vouch', {
      text: 'x',
      code: '000000',
    });
    expect(nVouches.status).toBe(409);
    expect(String(nVouches.body['message'])).toContain('no signed licence');
  });

  it('at most 10 open requests, even when twelve asks race', async () => {
    const { n } = await pair();
    const asks = await Promise.all(
      Array.from({ length: 12 }, () =>
        call(n, 'POST', '/v1/licence/installs/ask', { purpose: 'add' }),
      ),
    );
    expect(asks.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = asks.filter((r) => r.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]?.body['error']).toBe('too_many_requests');
    expect(await events(n, 'licence.install.asked')).toHaveLength(10);
  });

  it('a grant covers its own install only: N’s data folder on another host is not covered', async () => {
    const { e, n, nClock } = await pair();
    const asked = await ask(n);
    const v = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: asked.code,
    });
    expect((await call(n, 'POST', '/v1/licence', { licence: v.body['text'] })).status).toBe(200);
    // Pasting it again changes nothing and records nothing more.
    const twice = await Promise.all([
      call(n, 'POST', '/v1/licence', { licence: v.body['text'] }),
      call(n, 'POST', '/v1/licence', { licence: v.body['text'] }),
    ]);
    expect(twice.map((r) => [r.status, r.body['changed']])).toEqual([
      [200, false],
      [200, false],
    ]);
    expect(await events(n, 'licence.install.grant_accepted')).toHaveLength(1);
    // The same data folder started on a host with another machine id.
    await n.stop();
    writeFileSync(join(n.dir, 'machine-id'), '1234567890abcdef1234567890abcdef\n');
    const copy = await buildTestServer({ env: { SVC_TRIAL: '0' }, dir: n.dir, clock: nClock });
    servers.push(copy);
    const st = (await call(copy, 'GET', '/v1/status')).body as {
      mode: string;
      licence: { valid: boolean; vouched_until: string | null };
    };
    expect(st.mode).toBe('setup');
    expect(st.licence).toMatchObject({ valid: false, vouched_until: null });
    // Nor does pasting the grant there cover it: the request was another host's.
    const pasted = await call(copy, 'POST', '/v1/licence', { licence: v.body['text'] });
    expect(pasted.status).toBe(400);
    expect(pasted.body['check']).toBe('request_unknown');
  });

  it('a malformed code is a 400 naming code and costs no attempt', async () => {
    const { e, n } = await pair();
    const asked = await ask(n);
    for (const code of ['418-207', '41820', 'abc def'])
      expect(
        (await call(e, 'POST', '/v1/licence/installs/vouch', { text: asked.text, code })).status,
        code,
      ).toBe(400);
    expect(await events(e, 'licence.install.code_mismatch')).toHaveLength(0);
    const ok = await call(e, 'POST', '/v1/licence/installs/vouch', {
      text: asked.text,
      code: asked.code,
    });
    expect(ok.body['result']).toBe('granted');
  });

  it('a removal frees the seat, not the offline allowance; two removals at once record one', async () => {
    const { e, n } = await pair({ vouch: { self_service: 1, grant_days: 60 } });
    const a = await ask(n);
    await call(e, 'POST', '/v1/licence/installs/vouch', { text: a.text, code: a.code });
    const both = await Promise.all([
      call(e, 'POST', '/v1/licence/installs/remove', { fingerprint: N_FP }),
      call(e, 'POST', '/v1/licence/installs/remove', { fingerprint: N_FP }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 404]);
    expect(await events(e, 'licence.install.removed')).toHaveLength(1);
    // N still runs on its grant until it ends: the one offline grant allowed is spent.
    const b = await ask(n, 'add', 'again');
    const w = await call(e, 'POST', '/v1/licence/installs/vouch', { text: b.text, code: b.code });
    expect(w.body['result']).toBe('manual');
    expect(String(w.body['why'])).toContain('no offline grants left');
    const usage = (await call(e, 'GET', '/v1/licence/usage')).body as { payload: string };
    const statement = JSON.parse(Buffer.from(usage.payload, 'base64url').toString('utf8')) as {
      installs: { removed: { req_id: string | null; was: string }[] };
    };
    expect(statement.installs.removed).toEqual([
      expect.objectContaining({ was: 'grant', req_id: a.req_id }),
    ]);
  });

  it('53: wrong codes and the burned request reach a syslog sink as security events', async () => {
    const sink = createSocket('udp4');
    const lines: string[] = [];
    sink.on('message', (m) => lines.push(m.toString('utf8')));
    await new Promise<void>((resolve) => {
      sink.bind(0, '127.0.0.1', resolve);
    });
    try {
      const { e, n } = await pair({}, 0, {
        SVC_SYSLOG: `udp://127.0.0.1:${String(sink.address().port)}`,
      });
      const asked = await ask(n);
      for (let i = 0; i < 5; i += 1)
        await call(e, 'POST', '/v1/licence/installs/vouch', {
          text: asked.text,
          code: wrongCode(asked.code),
        });
      const deadline = Date.now() + 5000;
      const of = (type: string) => lines.filter((l) => l.includes(` ${type} `));
      while (
        (of('licence.install.request_burned').length === 0 ||
          of('licence.install.code_mismatch').length < 5) &&
        Date.now() < deadline
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(of('licence.install.code_mismatch')).toHaveLength(5);
      expect(of('licence.install.request_burned')).toHaveLength(1);
      // authpriv (10) × 8 + notice (5) = <85>: a security event, never the request text.
      expect(of('licence.install.request_burned')[0]).toMatch(/^<85>1 /);
      expect(lines.join('\n')).not.toContain('BEGIN SVC INSTALL REQUEST');
    } finally {
      sink.close();
    }
  });

  it('bad bodies get a 400 naming the field and change nothing', async () => {
    const { e, n } = await pair();
    const badPurpose = await call(n, 'POST', '/v1/licence/installs/ask', { purpose: 'steal' });
    expect(badPurpose.status).toBe(400);
    expect(JSON.stringify(badPurpose.body)).toContain('purpose');
    const noCode = await call(e, 'POST', '/v1/licence/installs/vouch', { text: 'x' });
    expect(noCode.status).toBe(400);
    expect(JSON.stringify(noCode.body)).toContain('code');
    expect((await events(n, 'licence.install.asked')).length).toBe(0);
    expect((await events(e, 'licence.install.vouched')).length).toBe(0);
  });
});
