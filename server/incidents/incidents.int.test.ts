// Incidents from real alerts over HTTP: grouping by the policy's key within its window,
// the status following the episodes with its history, the list and the record; the team's
// verdict on an episode; maintenance windows and inhibition visible on the episode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAP_HOLD_MS } from '../episodes/index.js';
import { createFakeClock } from '../shared/clock.js';
import {
  asAdmin,
  buildTestServer,
  type TestServer,
  episodeOf,
  postAlert,
} from '../testing/test-server.js';

const clock = createFakeClock('2026-11-22T10:00:00.000Z');
let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer({ clock });
});
afterAll(async () => {
  await server.cleanup();
});

interface Incident {
  incident_id: string;
  status: string;
  root_episode_id: string;
  services: string[];
  lifecycle: { status: string; opened_at: string; resolved_at: string | null };
  episodes: { episode_id: string; service: string; relation: string; status: string }[];
  history: { event: string; from?: string; to?: string; episode_id?: string }[];
}

async function alert(
  name: string,
  service: string,
  status: 'firing' | 'resolved',
  labels: Record<string, string> = {},
): Promise<string> {
  const res = await postAlert(server, { name, service, status, labels });
  expect(res.statusCode, res.body).toBe(202);
  return episodeOf(res) ?? '';
}

const get = async <T>(url: string, expected = 200): Promise<T> => {
  const res = await server.app.inject({ method: 'GET', url, headers: asAdmin() });
  expect(res.statusCode, res.body).toBe(expected);
  return res.json<T>();
};
const incidentOf = (episodeId: string): string =>
  server.runtime.episodesStore.get(episodeId)?.incident_id ?? '';

describe('incidents', () => {
  let root = '';
  let related = '';
  let other = '';

  it('groups episodes of different services with the same alert name within the window', async () => {
    root = await alert('InstanceDown', 'payments', 'firing');
    clock.advance(60_000);
    related = await alert('InstanceDown', 'checkout', 'firing');
    other = await alert('DiskFull', 'search', 'firing');
    expect(incidentOf(related)).toBe(incidentOf(root));
    expect(incidentOf(other)).not.toBe(incidentOf(root));

    const incident = await get<Incident>(`/v1/incidents/${incidentOf(root)}`);
    expect(incident).toMatchObject({
      status: 'open',
      root_episode_id: root,
      services: ['payments', 'checkout'],
    });
    expect(incident.episodes.map((e) => [e.episode_id, e.relation])).toEqual([
      [root, 'root'],
      [related, 'related'],
    ]);
  });

  it('does not group beyond the window', async () => {
    clock.advance(10 * 60_000);
    const late = await alert('InstanceDown', 'ledger', 'firing');
    expect(incidentOf(late)).not.toBe(incidentOf(root));
    await alert('InstanceDown', 'ledger', 'resolved');
  });

  it('follows its episodes: monitoring when every alert ended, open when one fires again, resolved when all closed', async () => {
    const id = incidentOf(root);
    await alert('InstanceDown', 'payments', 'resolved');
    expect((await get<Incident>(`/v1/incidents/${id}`)).status).toBe('open');
    await alert('InstanceDown', 'checkout', 'resolved');
    expect((await get<Incident>(`/v1/incidents/${id}`)).status).toBe('monitoring');
    await alert('InstanceDown', 'checkout', 'firing');
    expect((await get<Incident>(`/v1/incidents/${id}`)).status).toBe('open');
    await alert('InstanceDown', 'checkout', 'resolved');

    clock.advance(FLAP_HOLD_MS + 1000);
    await server.episodes.closeQuiet();
    const done = await get<Incident>(`/v1/incidents/${id}`);
    expect(done.status).toBe('resolved');
    expect(done.lifecycle.resolved_at).not.toBeNull();
    expect(
      done.history.map((h) => (h.event === 'status' ? `${h.from}->${h.to}` : h.event)),
    ).toEqual([
      'opened',
      'joined',
      'open->monitoring',
      'monitoring->open',
      'open->monitoring',
      'monitoring->resolved',
    ]);
  });

  it('lists incidents newest first, filtered by status', async () => {
    const all = await get<{ incidents: { incident_id: string; status: string }[]; total: number }>(
      '/v1/incidents',
    );
    expect(all.total).toBe(3);
    const open = await get<{ incidents: { incident_id: string }[] }>('/v1/incidents?status=open');
    expect(open.incidents.map((i) => i.incident_id)).toEqual([incidentOf(other)]);
    const resolved = await get<{ incidents: { incident_id: string }[] }>(
      '/v1/incidents?status=resolved,monitoring',
    );
    expect(resolved.incidents).toHaveLength(2);
    const bad = await get<{ field: string }>('/v1/incidents?status=open,closed', 400);
    expect(bad.field).toBe('status');
    await get('/v1/incidents/in-20260101T000000Z-000000', 404);
  });

  it('shows closed episodes of the incident in the list, grouped with group=incident', async () => {
    const body = await get<{
      episodes: { episode_id: string; related: number; services: string[] }[];
    }>('/v1/episodes?group=incident');
    const row = body.episodes.find((e) => e.episode_id === root);
    expect(row).toMatchObject({ related: 1, services: ['payments', 'checkout'] });
  });
});

describe("the team's verdict", () => {
  const post = (id: string, payload: Record<string, unknown>, headers = asAdmin()) =>
    server.app.inject({ method: 'POST', url: `/v1/episodes/${id}/team`, headers, payload });

  it('is recorded in the ledger and shown on the episode', async () => {
    const id = await alert('HighLatency', 'api', 'firing');
    const res = await post(id, {
      verdict: 'advice',
      detail: 'followed the suggested restart',
      by: 'ana',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ episode_id: id, verdict: 'advice', by: 'ana' });
    const episode = await get<{ team: unknown }>(`/v1/episodes/${id}`);
    expect(episode.team).toEqual({ verdict: 'advice', detail: 'followed the suggested restart' });
    const event = server.runtime.ledgerStore.range(
      res.json<{ seq: number }>().seq - 1,
      res.json<{ seq: number }>().seq,
      1,
    )[0];
    expect(event).toMatchObject({ type: 'episode.team', actor: 'ana' });
  });

  it('needs a detail for other, and refuses an unknown verdict, changing nothing', async () => {
    const id = await alert('HighLatency', 'web', 'firing');
    const before = server.runtime.ledgerStore.head().seq;
    const noDetail = await post(id, { verdict: 'other' });
    expect(noDetail.statusCode).toBe(400);
    expect(noDetail.json()).toMatchObject({ field: 'detail' });
    const blank = await post(id, { verdict: 'other', detail: '   ' });
    expect(blank.statusCode).toBe(400);
    const unknown = await post(id, { verdict: 'great' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ field: 'verdict' });
    expect(server.runtime.ledgerStore.head().seq).toBe(before);
    const ok = await post(id, { verdict: 'other', detail: 'rolled back by hand' });
    expect(ok.statusCode).toBe(200);
    expect((await post(id, { verdict: 'none' })).statusCode).toBe(200);
  });

  it('is 404 for an episode that does not exist', async () => {
    const res = await post('ep-20260101T000000Z-000000', { verdict: 'same' });
    expect(res.statusCode).toBe(404);
  });
});

describe('noise control from the policy', () => {
  const putPolicy = async (policy: Record<string, unknown>): Promise<void> => {
    const res = await server.app.inject({
      method: 'PUT',
      url: '/v1/policy',
      headers: asAdmin(),
      payload: policy,
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const episodeOf = (id: string) =>
    get<{ suppressed: { kind: string; rule: string; until?: string; by?: { name: string } }[] }>(
      `/v1/episodes/${id}`,
    );

  it('records an alert of a service in a maintenance window, marked as suppressed', async () => {
    await putPolicy({
      maintenance: [
        {
          name: 'db-upgrade',
          services: ['billing*'],
          starts: new Date(clock.now() - 60_000).toISOString(),
          ends: new Date(clock.now() + 3_600_000).toISOString(),
          reason: 'planned upgrade',
        },
      ],
    });
    const inWindow = await alert('DiskFull', 'billing-db', 'firing');
    const outside = await alert('DiskFull', 'reports', 'firing');
    const suppressed = (await episodeOf(inWindow)).suppressed;
    expect(suppressed).toEqual([
      expect.objectContaining({
        kind: 'maintenance',
        rule: 'db-upgrade',
        reason: 'planned upgrade',
      }),
    ]);
    expect((await episodeOf(outside)).suppressed).toEqual([]);
    const events = server.runtime.reader.list({ trace: inWindow, order: 'asc', limit: 10 }).events;
    expect(events.map((e) => e.type)).toContain('episode.suppressed');
  });

  it('suppresses an alert while a named related alert fires (inhibition)', async () => {
    await putPolicy({
      inhibit: [
        {
          name: 'node-down',
          source: { alertname: 'NodeDown' },
          target: { severity: 'warning' },
          equal: ['host'],
        },
      ],
    });
    await alert('NodeDown', 'infra', 'firing', { host: 'db1', severity: 'critical' });
    const inhibited = await alert('SlowQueries', 'orders', 'firing', {
      host: 'db1',
      severity: 'warning',
    });
    const otherHost = await alert('SlowQueries', 'invoices', 'firing', {
      host: 'db2',
      severity: 'warning',
    });
    expect((await episodeOf(inhibited)).suppressed).toEqual([
      expect.objectContaining({
        kind: 'inhibition',
        rule: 'node-down',
        by: expect.objectContaining({ name: 'NodeDown' }) as unknown,
      }),
    ]);
    expect((await episodeOf(otherHost)).suppressed).toEqual([]);
    // Once the source ends, the same kind of alert is no longer inhibited.
    await alert('NodeDown', 'infra', 'resolved', { host: 'db1', severity: 'critical' });
    const after = await alert('SlowQueries', 'shipping', 'firing', {
      host: 'db1',
      severity: 'warning',
    });
    expect((await episodeOf(after)).suppressed).toEqual([]);
  });

  it('groups by the policy: with by [] every episode is an incident of its own', async () => {
    await putPolicy({ grouping: { window_s: 300, by: [] } });
    const a = await alert('Burst', 'one', 'firing');
    const b = await alert('Burst', 'two', 'firing');
    expect(incidentOf(a)).not.toBe(incidentOf(b));
    await putPolicy({ grouping: { window_s: 300, by: ['alertname'] } });
    const c = await alert('Storm', 'three', 'firing');
    const d = await alert('Storm', 'four', 'firing');
    expect(incidentOf(c)).toBe(incidentOf(d));
  });
});
