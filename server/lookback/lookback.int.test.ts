// Lookback over real HTTP against a real server and SQLite file, with paging and ticketing
// connections to a local server that answers with the vendors' recorded exchanges: 503 while
// configuring, 409 without a connection that keeps history, bad days refused naming the field
// (nothing changes), admins only, per-connection counts with a failing connection reported
// beside the others, one ledger event, and the last report kept across a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpProjections, rebuildProjections } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import { recorded, replayServer, type Replay } from '../testing/history-replay.js';
import { asAdmin, buildTestServer, personOn, type TestServer } from '../testing/test-server.js';

const NOW = '2026-11-28T08:00:00.000Z';
const clock = createFakeClock(NOW);
const pd = recorded('pagerduty').exchanges;
const sn = recorded('servicenow').exchanges;
let server: TestServer;
let vendor: Replay;
let base = '';
let viewer = '';

async function listen(s: TestServer): Promise<string> {
  return s.app.listen({ port: 0, host: '127.0.0.1' });
}

const call = async (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  token?: string,
) => {
  const headers: Record<string, string> =
    token === undefined ? asAdmin() : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
const mode = async () => (await call('GET', '/v1/status')).body['mode'];
const head = () => server.runtime.ledgerStore.head().seq;

beforeAll(async () => {
  vendor = await replayServer();
  // PagerDuty answers, ServiceNow refuses its count (its health is fine), '/' is the web check.
  vendor.answer((req) => {
    if (req.path === '/abilities') return pd['abilities']!.response;
    if (req.path === '/incidents') return pd['incidents_total']!.response;
    if (req.path === '/api/now/table/incident') return sn['table']!.response;
    if (req.path === '/api/now/stats/incident') return sn['unauthorized']!.response;
    return { status: 200, body: {} };
  });
  server = await buildTestServer({ clock });
  base = await listen(server);
  viewer = (await personOn(server, 'vera@example.com', 'viewer')).token;
});
afterAll(async () => {
  await server.cleanup();
  await vendor.close();
});

describe('lookback', () => {
  it('GET answers while configuring: no report, no history connection', async () => {
    const res = await call('GET', '/v1/lookback');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      report: null,
      connections: [],
      kinds: ['jira_service_management', 'opsgenie', 'pagerduty', 'servicenow'],
      days: { minimum: 7, maximum: 365 },
    });
  });

  it('POST while configuring: 409 with no history connection, 503 with one that does not work', async () => {
    const none = await call('POST', '/v1/lookback', { days: 30 });
    expect(none.status).toBe(409);
    expect(none.body['error']).toBe('no_history_connection');
    const put = await call('PUT', '/v1/connectors/pd-down', {
      kind: 'pagerduty',
      settings: { url: 'http://127.0.0.1:9/', api_token: { value: 'pd-token-down' } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const before = head();
    const res = await call('POST', '/v1/lookback', { days: 30 });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ mode: 'configuring' });
    expect(head()).toBe(before);
    expect((await call('DELETE', '/v1/connectors/pd-down')).status).toBe(200);
  });

  it('409 no_history_connection when no connection keeps history', async () => {
    const put = await call('PUT', '/v1/connectors/web', {
      kind: 'http',
      settings: { url: vendor.url },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await eventually(async () => (await mode()) === 'operating');
    const before = head();
    const res = await call('POST', '/v1/lookback', { days: 30 });
    expect(res.status).toBe(409);
    expect(res.body['error']).toBe('no_history_connection');
    expect(String(res.body['why'])).toMatch(/pagerduty/);
    expect(head()).toBe(before);
  });

  it('refuses bad days naming the field, and changes nothing', async () => {
    const before = head();
    for (const body of [{ days: 6 }, { days: 366 }, { days: 7.5 }, { days: '7' }, {}]) {
      const res = await call('POST', '/v1/lookback', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body['field'], JSON.stringify(body)).toBe('days');
    }
    expect(head()).toBe(before);
  });

  it('is for admins only', async () => {
    expect((await call('GET', '/v1/lookback', undefined, viewer)).status).toBe(403);
    expect((await call('POST', '/v1/lookback', { days: 30 }, viewer)).status).toBe(403);
  });

  it('counts per connection, reports a failing one beside the others, and records it', async () => {
    for (const [name, doc] of [
      [
        'pd',
        { kind: 'pagerduty', settings: { url: vendor.url, api_token: { value: 'pd-token-123' } } },
      ],
      [
        'snow',
        {
          kind: 'servicenow',
          settings: { url: vendor.url, user: 'lookback', password: { value: 'sn-pass-456' } },
        },
      ],
    ] as const) {
      const put = await call('PUT', `/v1/connectors/${name}`, doc);
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    const listed = await call('GET', '/v1/lookback');
    expect((listed.body['connections'] as { name: string }[]).map((c) => c.name)).toEqual([
      'pd',
      'snow',
    ]);
    const before = head();
    const res = await call('POST', '/v1/lookback', { days: 30 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      days: 30,
      since: '2026-10-29T08:00:00.000Z',
      until: NOW,
      total: 27,
      run_by: 'admin-token',
      connections: [
        { name: 'pd', kind: 'pagerduty', count: 27, error: null },
        { name: 'snow', kind: 'servicenow', count: null },
      ],
    });
    const snow = (res.body['connections'] as { error: string }[])[1];
    expect(snow?.error).toMatch(/ServiceNow refused the credential \(HTTP 401\)/);
    expect(JSON.stringify(res.body)).not.toMatch(/pd-token-123|sn-pass-456/);
    // PagerDuty was asked for the window, resolved only.
    const asked = vendor.seen.find((s) => s.path === '/incidents');
    expect(asked?.query.get('since')).toBe('2026-10-29T08:00:00.000Z');
    expect(asked?.query.getAll('statuses[]')).toEqual(['resolved']);
    // One event, and the report is the event.
    expect(head()).toBe(before + 1);
    const events = server.runtime.reader.list({ type: 'lookback.reported' }).events;
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ days: 30, total: 27 });
    expect(res.body['seq']).toBe(events[0]?.seq);
  });

  it('two runs at once ask each vendor once and share one report', async () => {
    const before = head();
    const asked = vendor.seen.length;
    const [a, b] = await Promise.all([
      call('POST', '/v1/lookback', { days: 30 }),
      call('POST', '/v1/lookback', { days: 30 }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body['seq']).toBe(b.body['seq']);
    expect(head()).toBe(before + 1);
    const once = vendor.seen.length - asked;
    // A run alone, for the same count of calls.
    await call('POST', '/v1/lookback', { days: 30 });
    expect(vendor.seen.length - asked - once).toBe(once);
  });

  it('rebuilds its table from the ledger to the same row', () => {
    const rt = server.runtime;
    const before = dumpProjections(rt.db, rt.projections);
    const result = rebuildProjections(rt.db, rt.ledgerStore, rt.projections, false, (fn) => {
      rt.writer.transactNow(fn);
    });
    expect(result.differing).toEqual([]);
    expect(dumpProjections(rt.db, rt.projections)).toEqual(before);
  });

  it('GET returns the last report after a restart', async () => {
    const last = (await call('GET', '/v1/lookback')).body['report'];
    await server.stop();
    server = await buildTestServer({ clock, dir: server.dir });
    base = await listen(server);
    const res = await call('GET', '/v1/lookback');
    expect(res.status).toBe(200);
    expect(res.body['report']).toEqual(last);
    expect(res.body['report']).toMatchObject({ total: 27 });
  });
});
