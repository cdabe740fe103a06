// Episodes from real alerts over HTTP: open, join, quiet, flap back, close after the hold,
// the live view and the episode record, on a real SQLite ledger with a fake clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import {
  asAdmin,
  buildTestServer,
  type TestServer,
  episodeOf,
  postAlert,
} from '../testing/test-server.js';
import { FLAP_HOLD_MS } from './episodes.service.js';

const clock = createFakeClock('2026-11-22T10:00:00.000Z');
let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer({ clock });
});
afterAll(async () => {
  await server.cleanup();
});

interface Live {
  seq: number;
  running: {
    episode_id: string;
    service: string;
    alerts: string[];
    status: string;
    step: string;
    t_open: string;
  }[];
}
interface Episode {
  episode_id: string;
  live: boolean;
  status?: string;
  alerts: string[];
  decision: string;
  outcome: string;
  result: string;
  t_close: string | null;
  timeline: { seq: number; type: string }[];
}

async function alert(
  name: string,
  service: string,
  status: 'firing' | 'resolved',
): Promise<string | null> {
  const res = await postAlert(server, {
    name,
    service,
    status,
    labels: { instance: `${service}-1` },
  });
  expect(res.statusCode, res.body).toBe(202);
  return episodeOf(res);
}

const live = async (): Promise<Live> =>
  (await server.app.inject({ method: 'GET', url: '/v1/live', headers: asAdmin() })).json<Live>();
const episode = async (id: string, query = ''): Promise<Episode> =>
  (
    await server.app.inject({
      method: 'GET',
      url: `/v1/episodes/${id}${query}`,
      headers: asAdmin(),
    })
  ).json<Episode>();

describe('episodes', () => {
  let pay: string;

  it('a firing signal opens an episode of its service; others of the service join it', async () => {
    const before = await live();
    pay = (await alert('HighLatency', 'pay', 'firing')) ?? '';
    expect(pay).toMatch(/^ep-20261122T100000Z-[0-9a-f]{6}$/);
    expect(await alert('ErrorRate', 'pay', 'firing')).toBe(pay);
    const other = await alert('DiskFull', 'db', 'firing');
    expect(other).not.toBe(pay);

    const now = await live();
    expect(now.seq).toBeGreaterThan(before.seq);
    expect(now.running).toEqual([
      expect.objectContaining({
        episode_id: pay,
        service: 'pay',
        alerts: ['HighLatency', 'ErrorRate'],
        status: 'open',
      }),
      expect.objectContaining({
        episode_id: other,
        service: 'db',
        alerts: ['DiskFull'],
        status: 'open',
      }),
    ]);
    const ep = await episode(pay);
    expect(ep).toMatchObject({ live: true, status: 'open', alerts: ['HighLatency', 'ErrorRate'] });
    expect(ep.timeline.map((e) => e.type)).toEqual([
      'signal.fired',
      'episode.opened',
      'signal.fired',
      'episode.joined',
    ]);
  });

  it('goes quiet when its last signal resolves, and a flapping alert rejoins it', async () => {
    await alert('HighLatency', 'pay', 'resolved');
    expect((await episode(pay)).status).toBe('open');
    expect(await alert('ErrorRate', 'pay', 'resolved')).toBe(pay);
    expect((await episode(pay)).status).toBe('quiet');

    clock.advance(FLAP_HOLD_MS - 1000);
    expect(await server.episodes.closeQuiet()).toBe(0);
    expect(await alert('HighLatency', 'pay', 'firing')).toBe(pay);
    expect((await episode(pay)).status).toBe('open');
    await alert('HighLatency', 'pay', 'resolved');
    expect((await episode(pay)).status).toBe('quiet');
  });

  it('closes as settled after the hold, leaves the live view, and a new firing opens a new one', async () => {
    clock.advance(FLAP_HOLD_MS);
    expect(await server.episodes.closeQuiet()).toBe(1);
    const closed = await episode(pay);
    expect(closed).toMatchObject({
      live: false,
      decision: 'settled',
      outcome: 'cleared',
      result: 'resolved',
    });
    expect(closed.t_close).not.toBeNull();
    expect((await live()).running.map((r) => r.service)).toEqual(['db']);

    const next = await alert('HighLatency', 'pay', 'firing');
    expect(next).not.toBe(pay);
  });

  it('gives the timeline after a seq, 404 for an unknown episode, 400 for a malformed id', async () => {
    const full = await episode(pay);
    const cut = full.timeline[2]?.seq ?? 0;
    const since = await episode(pay, `?after_seq=${String(cut)}`);
    expect(since.timeline.map((e) => e.seq)).toEqual(
      full.timeline.filter((e) => e.seq > cut).map((e) => e.seq),
    );
    const missing = await server.app.inject({
      method: 'GET',
      url: '/v1/episodes/ep-20260101T000000Z-000000',
      headers: asAdmin(),
    });
    expect(missing.statusCode).toBe(404);
    const bad = await server.app.inject({
      method: 'GET',
      url: '/v1/episodes/nope',
      headers: asAdmin(),
    });
    expect(bad.statusCode).toBe(400);
  });
});

describe('with SVC_ORCHESTRATE=0', () => {
  it('alerts are still recorded and episodes opened; the status says investigation is off', async () => {
    const off = await buildTestServer({ env: { SVC_ORCHESTRATE: '0' } });
    try {
      const res = await postAlert(off, {
        name: 'QueueBacklog',
        service: 'billing',
        fingerprint: 'orchestrate-off-1',
        summary: 'backlog',
      });
      expect(res.statusCode, res.body).toBe(202);
      const live = (
        await off.app.inject({ method: 'GET', url: '/v1/live', headers: asAdmin() })
      ).json<Live>();
      expect(live.running).toEqual([
        expect.objectContaining({ service: 'billing', alerts: ['QueueBacklog'] }),
      ]);
      const status = (await off.app.inject({ method: 'GET', url: '/v1/status' })).json<{
        orchestrate: boolean;
      }>();
      expect(status.orchestrate).toBe(false);
      // The lists and incidents keep working; nothing records an investigation step.
      const list = (
        await off.app.inject({ method: 'GET', url: '/v1/episodes?scorecard=1', headers: asAdmin() })
      ).json<{ running: unknown[]; total: number }>();
      expect(list).toMatchObject({ total: 0, running: [expect.anything()] });
      const incidents = (
        await off.app.inject({ method: 'GET', url: '/v1/incidents', headers: asAdmin() })
      ).json<{ total: number }>();
      expect(incidents.total).toBe(1);
      const steps = off.runtime.reader
        .list({ order: 'asc', limit: 500 })
        .events.filter(
          (e) => e.type.startsWith('episode.') && !['episode.opened'].includes(e.type),
        );
      expect(steps).toEqual([]);
      const verify = (
        await off.app.inject({ method: 'GET', url: '/v1/ledger/verify', headers: asAdmin() })
      ).json<{ ok: boolean }>();
      expect(verify.ok).toBe(true);
    } finally {
      await off.cleanup();
    }
  });
});
