// Service coverage through the real server (licence.md §3.8): services beyond the licence's
// limit have their signals recorded but are not investigated (investigation.skipped
// not_covered_by_licence on the episode's timeline), pinned services are always covered,
// more pins than the limit is a 409, status counts services_used, and coverage exceeded is
// recorded at most once a day.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../install/index.js';
import { createFakeClock } from '../shared/clock.js';
import { createTestIssuer, licencePayload, productionInstall } from '../testing/licence/issuer.js';
import {
  ADMIN_TOKEN,
  buildTestServer,
  episodeOf,
  postAlert,
  type TestServer,
} from '../testing/test-server.js';
import type { LicencePayload } from './index.js';

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const START = '2026-11-27T12:00:00.000Z';
const DAY = 86_400_000;
const issuer = createTestIssuer();
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

const licence = (services: number | null): LicencePayload =>
  licencePayload(START, {
    limits: { services, installs: 10 },
    installs: [productionInstall(THIS, START)],
  });

let target: Server;
let targetUrl = '';
beforeAll(async () => {
  target = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${String((target.address() as AddressInfo).port)}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

let s: TestServer | null = null;
afterEach(async () => {
  await s?.cleanup();
  s = null;
});

async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Ev = { type: string; data: Record<string, unknown>; trace_id?: string | null };
const events = async (t: TestServer, prefix: string): Promise<Ev[]> =>
  (
    await t.app.inject({ url: `/v1/ledger?type=${prefix}&order=asc&limit=500`, headers: auth })
  ).json<{ events: Ev[] }>().events;
const status = async (t: TestServer) =>
  (await t.app.inject({ url: '/v1/status' })).json<{
    mode: string;
    licence: Record<string, unknown> | null;
  }>();
const pin = (t: TestServer, pinned: string[], headers: Record<string, string> = auth) =>
  t.app.inject({ method: 'PUT', url: '/v1/licence/services', headers, payload: { pinned } });

/** A server operating under a licence for `services` services (a connection that works). */
async function operating(services: number | null, clock = createFakeClock(START)) {
  s = await buildTestServer({ env: { SVC_TRIAL: '0' }, clock });
  const t = s;
  const r = await t.app.inject({
    method: 'POST',
    url: '/v1/licence',
    headers: auth,
    payload: { licence: issuer.licence(licence(services)) },
  });
  expect(r.statusCode, r.body).toBe(200);
  const put = await t.app.inject({
    method: 'PUT',
    url: '/v1/connectors/web',
    headers: auth,
    payload: { kind: 'http', settings: { url: targetUrl, service: 'web' } },
  });
  expect(put.statusCode, put.body).toBe(200);
  await eventually('operating', async () =>
    (await status(t)).mode === 'operating' ? true : undefined,
  );
  return { s: t, clock };
}

/** The investigation event (started or skipped) of an episode, once there is one. */
const investigationOf = (t: TestServer, episode: string) =>
  eventually(`the investigation of ${episode}`, async () =>
    (await events(t, 'investigation.')).find(
      (e) =>
        e.data['episode_id'] === episode &&
        (e.type === 'investigation.started' || e.type === 'investigation.skipped'),
    ),
  );

describe('service coverage', () => {
  it('records every signal but investigates only the covered services; pins are always covered', async () => {
    const { s } = await operating(2);
    const opened: Record<string, string> = {};
    for (const service of ['api', 'db', 'cache']) {
      const r = await postAlert(s, { name: 'Down', service });
      expect(r.statusCode, r.body).toBe(202); // never a 4xx, never dropped
      const id = episodeOf(r);
      expect(id).not.toBeNull();
      opened[service] = id ?? '';
    }
    const fired = await events(s, 'signal.fired');
    expect(fired.map((e) => e.data['service'])).toEqual(['api', 'db', 'cache']);

    expect((await investigationOf(s, opened['api'] ?? '')).type).toBe('investigation.started');
    expect((await investigationOf(s, opened['db'] ?? '')).type).toBe('investigation.started');
    const skipped = await investigationOf(s, opened['cache'] ?? '');
    expect(skipped).toMatchObject({
      type: 'investigation.skipped',
      data: { service: 'cache', why: 'not_covered_by_licence' },
    });
    // The reason is on the episode's own timeline.
    const ep = await s.app.inject({ url: `/v1/episodes/${opened['cache'] ?? ''}`, headers: auth });
    expect(ep.statusCode).toBe(200);
    const timeline = ep.json<{ timeline: { type: string; data?: Record<string, unknown> }[] }>()
      .timeline;
    expect(timeline.map((e) => e.type)).toContain('signal.fired');
    expect(JSON.stringify(timeline)).toContain('not_covered_by_licence');

    expect((await status(s)).licence).toMatchObject({ services: 2, services_used: 3 });

    // Coverage exceeded: recorded once a day, again the next day while it still is.
    await s.runtime.coverage.tick();
    await s.runtime.coverage.tick();
    let exceeded = await events(s, 'licence.coverage_exceeded');
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]?.data).toMatchObject({
      limit: 2,
      counted: 3,
      uncovered: 1,
      services: ['cache'],
    });

    // Pinning cache covers it; db, the latest first seen of the others, is then left out.
    const r = await pin(s, ['cache']);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toEqual({
      pinned: ['cache'],
      added: ['cache'],
      removed: [],
      services: 2,
      services_used: 3,
      uncovered: 1,
    });
    expect(s.runtime.coverage.covered('cache')).toBe(true);
    expect(s.runtime.coverage.covered('api')).toBe(true);
    expect(s.runtime.coverage.covered('db')).toBe(false);
    // The same pins again record nothing; unpinning records the removal.
    expect((await pin(s, ['cache'])).json()).toMatchObject({ added: [], removed: [] });
    expect((await pin(s, [])).json()).toMatchObject({ added: [], removed: ['cache'] });
    const pinned = await events(s, 'licence.services_pinned');
    expect(pinned.map((e) => e.data)).toEqual([
      { pinned: ['cache'], added: ['cache'], removed: [] },
      { pinned: [], added: [], removed: ['cache'] },
    ]);
    exceeded = await events(s, 'licence.coverage_exceeded');
    expect(exceeded).toHaveLength(1);
  });

  it('stops counting a service 30 days after its last signal, and records exceeded once a day', async () => {
    const { s, clock } = await operating(1);
    expect((await postAlert(s, { name: 'Down', service: 'api' })).statusCode).toBe(202);
    expect((await postAlert(s, { name: 'Down', service: 'db' })).statusCode).toBe(202);
    expect(s.runtime.coverage.covered('db')).toBe(false);
    await s.runtime.coverage.tick();
    clock.advance(DAY);
    await s.runtime.coverage.tick();
    expect(await events(s, 'licence.coverage_exceeded')).toHaveLength(2);
    // 29 more days: api's day and db's day fall out of the window together.
    clock.advance(29 * DAY);
    expect(s.runtime.coverage.state().counted).toEqual([]);
    expect((await status(s)).licence).toMatchObject({ services_used: 0 });
    // db alone now: it is covered.
    expect((await postAlert(s, { name: 'Again', service: 'db' })).statusCode).toBe(202);
    expect(s.runtime.coverage.covered('db')).toBe(true);
    expect(s.runtime.coverage.covered('api')).toBe(false);
  });

  it('refuses more pins than the limit with 409 and why, and pins only for the owner', async () => {
    s = await buildTestServer(); // the offline trial: 50 services
    const many = Array.from({ length: 53 }, (_, i) => `svc-${String(i).padStart(2, '0')}`);
    const r = await pin(s, many);
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({
      error: 'too_many_pins',
      why: '3 pins over the 50-service limit',
    });
    expect(await events(s, 'licence.services_pinned')).toEqual([]);
    expect((await pin(s, many.slice(0, 50))).statusCode).toBe(200);
    expect((await pin(s, ['not a name!'])).statusCode).toBe(400);
    expect((await pin(s, ['a'], {})).statusCode).toBe(401);
    expect((await status(s)).licence).toMatchObject({ services: 50, services_used: 50 });
  });

  it('covers every service under an unlimited licence', async () => {
    const { s } = await operating(null);
    const many = Array.from({ length: 300 }, (_, i) => `svc-${String(i)}`);
    expect((await pin(s, many)).statusCode).toBe(200);
    expect((await postAlert(s, { name: 'Down', service: 'other' })).statusCode).toBe(202);
    expect(s.runtime.coverage.covered('other')).toBe(true);
    await s.runtime.coverage.tick();
    expect(await events(s, 'licence.coverage_exceeded')).toEqual([]);
  });
});
