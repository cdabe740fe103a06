// GET /v1/episodes over real projection rows: every parameter, facet counts that apply every
// filter but their own, and a scorecard over exactly the selected rows, checked against a
// plain recount of the same rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { seedEpisodes, type SeedEpisode } from '../testing/episodes/episodes.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;

interface Row {
  episode_id: string;
  service: string;
  t_open: string;
  decision: string;
  result: string;
  handover_s: number | null;
  incident_id: string;
  related?: number;
  related_ids?: string[];
  services?: string[];
}
interface ListBody {
  episodes: Row[];
  total: number;
  running: unknown[];
  seq: number;
  facets: Record<string, Record<string, number>>;
  latest?: number;
  complete?: boolean;
  scorecard?: {
    episodes: number;
    results: Record<string, number>;
    incidents: number;
    share_ended_by_3am: number | null;
    restore_s: { median: number | null };
    handover_s: { median: number | null; within_90: number | null };
    actions: { ran: number; verified: number; taken_back: number; not_verified: number };
    minutes_saved: number | null;
  };
  histogram?: {
    day: string;
    total: number;
    proven: number;
    mitigated: number;
    results: Record<string, number>;
    taken_back: number;
    restore_s: { median: number | null; n: number };
    handover_s: { median: number | null; n: number };
  }[];
}

const at = (day: number, hour: number): string =>
  new Date(Date.UTC(2026, 10, day, hour)).toISOString();
const plus = (iso: string, s: number): string => new Date(Date.parse(iso) + s * 1000).toISOString();

// Twelve episodes over three days, with known answers.
const SEEDS: SeedEpisode[] = [
  {
    service: 'payments',
    t_open: at(20, 1),
    t_close: plus(at(20, 1), 600),
    decision: 'act',
    outcome: 'mitigated',
    result: 'restored',
    action: 'verified',
    confidence: 'proven',
    kind: 'failure',
    confirmed: ['disk_full'],
    restore_s: 300,
    alerts: ['DiskFull'],
  },
  {
    service: 'payments',
    t_open: at(20, 5),
    t_close: plus(at(20, 5), 900),
    decision: 'ask_human',
    outcome: 'escalated',
    result: 'handed_over',
    handover_s: 45,
    confidence: 'suspected',
    restore_s: 800,
  },
  {
    service: 'checkout',
    t_open: at(20, 9),
    t_close: plus(at(20, 9), 400),
    decision: 'settled',
    outcome: 'cleared',
    result: 'resolved',
    restore_s: 100,
  },
  {
    service: 'checkout',
    t_open: at(21, 2),
    t_close: plus(at(21, 2), 1200),
    decision: 'act',
    outcome: 'action_failed',
    result: 'handed_over',
    action: 'taken_back',
    handover_s: 200,
    confidence: 'proven',
    kind: 'failure',
    confirmed: ['bad_deploy'],
    restore_s: 1000,
  },
  {
    service: 'search',
    t_open: at(21, 4),
    t_close: plus(at(21, 4), 300),
    decision: 'shadow',
    outcome: 'shadow',
    result: 'shadow',
    confidence: 'linked',
  },
  {
    service: 'search',
    t_open: at(21, 8),
    t_close: plus(at(21, 8), 700),
    decision: 'abstain',
    outcome: 'unresolved',
    result: 'other',
    handover_s: 80,
  },
  {
    service: 'payments',
    t_open: at(21, 12),
    t_close: plus(at(21, 12), 500),
    decision: 'act',
    outcome: 'mitigated',
    result: 'restored',
    action: 'verified',
    confidence: 'proven',
    kind: 'failure',
    confirmed: ['pg_connections_exhausted'],
    restore_s: 240,
    alerts: ['PgConnections', 'HighLatency'],
  },
  {
    service: 'ledger',
    t_open: at(22, 1),
    t_close: plus(at(22, 1), 200),
    decision: 'cleared',
    outcome: 'cleared',
    result: 'cleared',
    confidence: 'cleared',
  },
  {
    service: 'ledger',
    t_open: at(22, 2),
    t_close: plus(at(22, 2), 650),
    decision: 'act',
    outcome: 'mitigated',
    result: 'resolved',
    action: 'not_verified',
    handover_s: 30,
    restore_s: 600,
  },
  {
    service: 'checkout',
    t_open: at(22, 3),
    t_close: plus(at(22, 3), 330),
    decision: 'settled',
    outcome: 'cleared',
    result: 'resolved',
    restore_s: 30,
  },
  {
    service: 'payments',
    t_open: at(22, 4),
    t_close: plus(at(22, 4), 800),
    decision: 'ask_human',
    outcome: 'escalated',
    result: 'handed_over',
    handover_s: 120,
  },
  {
    service: 'search',
    t_open: at(22, 5),
    t_close: plus(at(22, 5), 460),
    decision: 'settled',
    outcome: 'cleared',
    result: 'resolved',
    restore_s: 20,
  },
];

let ids: [string, string][] = [];
beforeAll(async () => {
  server = await buildTestServer({ clock });
  ids = seedEpisodes({ ...server.runtime, clock }, SEEDS);
  // Two more episodes that join the first incident: a related one on another service.
  const first = ids[0]![1];
  seedEpisodes({ ...server.runtime, clock }, [
    {
      service: 'gateway',
      t_open: plus(at(20, 1), 60),
      t_close: plus(at(20, 1), 700),
      incident: first,
      decision: 'related',
      outcome: 'explained',
      result: 'linked',
      confidence: 'linked',
      kind: 'downstream',
    },
  ]);
  clock.set('2026-11-22T12:00:00.000Z');
});
afterAll(async () => {
  await server.cleanup();
});

async function list(query: string): Promise<ListBody> {
  const res = await server.app.inject({
    method: 'GET',
    url: `/v1/episodes${query === '' ? '' : `?${query}`}`,
    headers: asAdmin(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ListBody>();
}

describe('GET /v1/episodes', () => {
  it('lists closed episodes newest first, with the running ones and the live seq', async () => {
    const body = await list('');
    expect(body.total).toBe(13);
    expect(body.episodes.map((e) => e.t_open)).toEqual(
      [...body.episodes.map((e) => e.t_open)].sort().reverse(),
    );
    expect(body.episodes[0]).toMatchObject({ service: 'search', result: 'resolved' });
    expect(body.running).toEqual([]);
    expect(body.seq).toBe(server.runtime.ledgerStore.head().seq);
  });

  it('pages with limit and offset, and sorts on other fields', async () => {
    const page = await list('limit=5&offset=10');
    expect(page.episodes).toHaveLength(3);
    expect(page.total).toBe(13);
    const byHandover = await list('sort=-handover_s&limit=3');
    expect(byHandover.episodes.map((e) => e.handover_s)).toEqual([200, 120, 80]);
    const byService = await list('sort=service&limit=13');
    const services = byService.episodes.map((e) => e.service);
    expect(services).toEqual([...services].sort());
  });

  it('counts each facet with every filter but its own', async () => {
    const body = await list('service=payments&result=restored');
    expect(body.total).toBe(2);
    // service facet: result=restored applies, service does not
    expect(body.facets['service']).toEqual({ payments: 2 });
    // result facet: service=payments applies, result does not
    expect(body.facets['result']).toEqual({ restored: 2, handed_over: 2 });
    // the others: both filters apply
    expect(body.facets['decision']).toEqual({ act: 2 });
    expect(body.facets['confidence']).toEqual({ proven: 2 });
  });

  it('keeps a filtered value at 0 in its facet, so it can be unticked', async () => {
    const body = await list('service=nowhere');
    expect(body.total).toBe(0);
    expect(body.facets['service']?.['nowhere']).toBe(0);
    expect(body.facets['service']?.['payments']).toBe(4);
  });

  it('filters on decision, outcome, confidence, kind and confirmed', async () => {
    expect((await list('decision=act,settled')).total).toBe(7);
    expect((await list('outcome=escalated')).total).toBe(2);
    expect((await list('confidence=proven')).total).toBe(3);
    expect((await list('kind=failure')).total).toBe(3);
    expect((await list('kind=downstream')).total).toBe(1);
    expect((await list('confirmed=yes')).total).toBe(3);
    expect((await list('confirmed=no')).total).toBe(10);
  });

  it('takes since (inclusive), until (exclusive), dates and range', async () => {
    expect((await list('since=2026-11-22')).total).toBe(5);
    expect((await list('until=2026-11-21')).total).toBe(4);
    expect((await list(`since=${encodeURIComponent(at(21, 4))}&until=2026-11-22`)).total).toBe(3);
    // 24 hours back from 12:00 on the 22nd includes the episode opened at 12:00 on the 21st
    expect((await list('range=24h')).total).toBe(6);
    expect((await list('range=7d')).total).toBe(13);
    // since wins over range
    expect((await list('range=24h&since=2026-11-20')).total).toBe(13);
  });

  it('matches q over ids, services, alerts and causes, and reads the query language', async () => {
    expect((await list('q=pgconn')).total).toBe(1);
    expect((await list('q=bad_deploy')).total).toBe(1);
    expect((await list('q=LEDGER')).total).toBe(2);
    expect((await list(`q=${ids[3]![0]}`)).total).toBe(1);
    expect((await list(`query=${encodeURIComponent('decision:act -service:ledger')}`)).total).toBe(
      3,
    );
    expect((await list(`query=${encodeURIComponent('duration>15m')}`)).total).toBe(1);
    expect(
      (await list(`query=${encodeURIComponent('alert:HighLatency OR service:search')}`)).total,
    ).toBe(4);
    const res = await server.app.inject({
      method: 'GET',
      url: `/v1/episodes?query=${encodeURIComponent('decision:nonsense')}`,
      headers: asAdmin(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'bad_query' });
  });

  it('cuts to the newest N with latest, and says whether that was everything', async () => {
    const cut = await list('latest=4');
    expect(cut).toMatchObject({ latest: 4, complete: false, total: 4 });
    expect(Object.values(cut.facets['service'] ?? {}).reduce((a, b) => a + b, 0)).toBe(4);
    const whole = await list('latest=5000');
    expect(whole).toMatchObject({ latest: 5000, complete: true, total: 13 });
  });

  it('gives a scorecard over exactly the selected rows', async () => {
    const body = await list('scorecard=1');
    const card = body.scorecard!;
    expect(card.episodes).toBe(13);
    expect(card.results).toEqual({
      restored: 2,
      handed_over: 3,
      resolved: 4,
      shadow: 1,
      other: 1,
      cleared: 1,
      linked: 1,
    });
    // 12 incidents: the gateway episode joined the first one.
    expect(card.incidents).toBe(12);
    // ended without a person: #1's incident is not (gateway's result is linked)… see below
    expect(card.actions).toEqual({ ran: 4, verified: 2, taken_back: 1, not_verified: 1 });
    // restore: 300 800 100 1000 240 600 30 20 → median (240+300)/2
    expect(card.restore_s.median).toBe(270);
    // handover: 45 200 80 30 120 → median 80; within 90: 45 80 30
    expect(card.handover_s).toMatchObject({ median: 80, within_90: 0.6 });
    expect(card.minutes_saved).toBeNull();

    const payments = (await list('scorecard=1&service=payments')).scorecard!;
    expect(payments.episodes).toBe(4);
    expect(payments.results).toEqual({ restored: 2, handed_over: 2 });
    expect(payments.handover_s).toMatchObject({ median: 82.5, within_90: 0.5 });
  });

  it('counts an incident as ended by the service only when no person was needed for any of it', async () => {
    // Ended by the service (no handover, result resolved/restored/cleared): #3, #7, #8, #10,
    // #12 as incidents of their own; #1 is not, because its gateway episode ended `linked`.
    const card = (await list('scorecard=1')).scorecard!;
    expect(card.share_ended_by_3am).toBe(Math.round((5 / 12) * 1000) / 1000);
  });

  it('computes minutes_saved from the caller’s own impact figures only', async () => {
    const put = await server.app.inject({
      method: 'PUT',
      url: '/v1/impact',
      headers: asAdmin(),
      payload: {
        currency: 'EUR',
        engineer_hour: 0,
        triage_min: 10,
        fix_min: 20,
        manual_resolve_min: 0,
        downtime_hour: 0,
        callout: 0,
        annual_cost: 0,
      },
    });
    expect(put.statusCode).toBe(200);
    // Triage and fix for each episode the service's own verified action restored or resolved
    // (#1, #7: act, verified, no person): 2 × (10 + 20). The settled ones (#3, #10, #12: the
    // alerts ended with nothing done), the one handed over with a proven cause (#4), the
    // shadow episode (#5) and the cleared one (#8) count nothing.
    expect((await list('scorecard=1')).scorecard!.minutes_saved).toBe(60);
  });

  it('gives per-day totals with histogram=day', async () => {
    const body = await list('histogram=day');
    expect(body.histogram?.map((d) => [d.day, d.total, d.proven, d.mitigated])).toEqual([
      ['2026-11-20', 4, 1, 1],
      ['2026-11-21', 4, 2, 1],
      ['2026-11-22', 5, 0, 1],
    ]);
  });

  it('adds per day the results (taken back apart) and the median restore and handover times', async () => {
    const body = await list('histogram=day');
    expect(
      body.histogram?.map((d) => [d.day, d.results, d.taken_back, d.restore_s, d.handover_s]),
    ).toEqual([
      [
        '2026-11-20',
        { restored: 1, handed_over: 1, resolved: 1, linked: 1 },
        0,
        { median: 300, n: 3 },
        { median: 45, n: 1 },
      ],
      // #4 was taken back: it counts there and not as handed over; its times still count.
      [
        '2026-11-21',
        { shadow: 1, other: 1, restored: 1 },
        1,
        { median: 620, n: 2 },
        { median: 140, n: 2 },
      ],
      [
        '2026-11-22',
        { cleared: 1, resolved: 3, handed_over: 1 },
        0,
        { median: 30, n: 3 },
        { median: 75, n: 2 },
      ],
    ]);
    // Each day's results and taken_back add up to its total.
    for (const d of body.histogram ?? [])
      expect(Object.values(d.results).reduce((a, b) => a + b, d.taken_back)).toBe(d.total);
    // The same window through since (inclusive) and until (exclusive): one day.
    const one = await list('histogram=day&since=2026-11-21&until=2026-11-22');
    expect(one.histogram?.map((d) => [d.day, d.total, d.restore_s.median])).toEqual([
      ['2026-11-21', 4, 620],
    ]);
    expect(one.total).toBe(4);
  });

  it('gives one row per incident with group=incident: the root plus related, related_ids, services', async () => {
    const body = await list('group=incident&limit=100');
    expect(body.total).toBe(12);
    const first = body.episodes.find((e) => e.incident_id === ids[0]![1]);
    expect(first).toMatchObject({
      episode_id: ids[0]![0],
      service: 'payments',
      related: 1,
      services: ['payments', 'gateway'],
    });
    expect(first?.related_ids).toHaveLength(1);
  });

  it.each([
    ['decision=nope', 'decision'],
    ['result=fine', 'result'],
    ['confidence=sure', 'confidence'],
    ['kind=other', 'kind'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['latest=5001', 'latest'],
    ['range=2w', 'range'],
    ['since=yesterday', 'since'],
    ['since=2026-11-22&until=2026-11-21', 'until'],
    ['sort=-colour', 'sort'],
    ['confirmed=maybe', 'confirmed'],
    ['histogram=week', 'histogram'],
    ['group=service', 'group'],
    ['colour=blue', 'colour'],
  ])('refuses %s with a 400 naming %s', async (query, field) => {
    const res = await server.app.inject({
      method: 'GET',
      url: `/v1/episodes?${query}`,
      headers: asAdmin(),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(
      res.json<{ field?: string; message: string }>().field ??
        res.json<{ message: string }>().message,
    ).toContain(field);
  });
});
