// The list's one-pass scan against a plain recount: random episodes, random selections (facets,
// a time window, `q` through the text index), and for each the total, every facet's counts
// and the scorecard must equal what a naive filter over the table's rows gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { CONFIDENCES, DECISIONS, KINDS, OUTCOMES, RESULTS } from './enumerations.js';
import { seedEpisodes, type SeedEpisode } from '../testing/episodes/episodes.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;

/** A small deterministic generator (mulberry32), so that a failure repeats. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(20261122);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const some = <T>(xs: readonly T[]): T[] => xs.filter(() => rnd() < 0.3);

const SERVICES = ['payments', 'checkout', 'search', 'ledger', 'gateway'];
const FACET_VALUES = {
  service: SERVICES,
  decision: DECISIONS.slice(0, 6),
  outcome: OUTCOMES.slice(0, 5),
  confidence: CONFIDENCES,
  kind: KINDS.slice(0, 3),
  result: RESULTS,
} as const;
type FacetName = keyof typeof FACET_VALUES;
const FACET_NAMES = Object.keys(FACET_VALUES) as FacetName[];

/** Terms of `q`: parts of services, a cause, an id's prefix, and one that matches nothing. */
const TERMS = ['checkout', 'pay', 'EDGE', 'disk_full', 'ep-', 'nowhere'];
const TEXT_COLUMNS = [
  'episode_id',
  'service',
  'alerts',
  'confirmed',
  'note',
  'fix',
  'diagnosis',
] as const;

interface Row {
  episode_id: string;
  alerts: string;
  note: string | null;
  fix: string | null;
  diagnosis: string | null;
  service: string;
  t_open: string;
  decision: string;
  outcome: string;
  confidence: string;
  kind: string;
  result: string;
  action: string;
  handover_s: number | null;
  restore_s: number | null;
  confirmed: string;
  incident_id: string;
}

beforeAll(async () => {
  server = await buildTestServer({ clock });
  const seeds: SeedEpisode[] = [];
  const incidents: string[] = [];
  const start = Date.parse('2026-10-01T00:00:00Z');
  for (let i = 0; i < 400; i++) {
    const open = new Date(start + Math.floor(rnd() * 50 * 86_400_000)).toISOString();
    const close = new Date(Date.parse(open) + 60_000 + Math.floor(rnd() * 3_600_000)).toISOString();
    const joins = incidents.length > 0 && rnd() < 0.2 ? pick(incidents) : undefined;
    seeds.push({
      service: pick(SERVICES),
      t_open: open,
      t_close: close,
      decision: pick(FACET_VALUES.decision),
      outcome: pick(FACET_VALUES.outcome),
      result: pick(FACET_VALUES.result),
      confidence: pick(FACET_VALUES.confidence),
      kind: pick(FACET_VALUES.kind),
      action: pick(['', '', 'verified', 'taken_back', 'not_verified']),
      handover_s: rnd() < 0.5 ? null : Math.floor(rnd() * 300),
      ...(rnd() < 0.3 && { confirmed: ['disk_full'] }),
      ...(rnd() < 0.7 && { restore_s: Math.floor(rnd() * 2000) }),
      ...(joins !== undefined && { incident: joins }),
    });
    // Only incidents opened earlier can be joined: seed one at a time.
    const [, incident] = seedEpisodes({ ...server.runtime, clock }, [seeds[i]!])[0]!;
    if (joins === undefined) incidents.push(incident);
  }
  clock.set('2026-11-22T12:00:00.000Z');
});
afterAll(async () => {
  await server.cleanup();
});

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

describe('the list against a plain recount', () => {
  it('agrees on totals, facet counts and the scorecard for 60 random selections', async () => {
    const rows = server.runtime.db
      .prepare(`SELECT * FROM episodes WHERE status = 'closed'`)
      .all() as Row[];
    expect(rows).toHaveLength(400);
    for (let round = 0; round < 60; round++) {
      const filters: Partial<Record<FacetName, string[]>> = {};
      for (const f of FACET_NAMES) {
        if (rnd() < 0.35) {
          const values = some(FACET_VALUES[f]);
          if (values.length > 0) filters[f] = values;
        }
      }
      const since =
        rnd() < 0.4 ? `2026-10-${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}` : null;
      const until =
        rnd() < 0.2 ? `2026-11-${String(1 + Math.floor(rnd() * 20)).padStart(2, '0')}` : null;
      const confirmed = rnd() < 0.2 ? pick(['yes', 'no']) : null;
      const q = rnd() < 0.4 ? pick(TERMS) : null;
      const params = new URLSearchParams({ scorecard: '1', limit: '1' });
      for (const [f, v] of Object.entries(filters)) params.set(f, v.join(','));
      if (since !== null) params.set('since', since);
      if (until !== null) params.set('until', until);
      if (q !== null) params.set('q', q);
      if (confirmed !== null) params.set('confirmed', confirmed);

      const res = await server.app.inject({
        method: 'GET',
        url: `/v1/episodes?${params.toString()}`,
        headers: asAdmin(),
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{
        total: number;
        facets: Record<string, Record<string, number>>;
        scorecard: {
          results: Record<string, number>;
          restore_s: { median: number | null };
          handover_s: { median: number | null };
          actions: Record<string, number>;
          incidents: number;
        };
      }>();

      const base = (r: Row): boolean =>
        (since === null || r.t_open >= `${since}T00:00:00`) &&
        (until === null || r.t_open < `${until}T00:00:00`) &&
        (q === null ||
          TEXT_COLUMNS.some((c) => (r[c] ?? '').toLowerCase().includes(q.toLowerCase()))) &&
        (confirmed === null || (r.confirmed !== '[]') === (confirmed === 'yes'));
      const passes = (r: Row, except: FacetName | null): boolean =>
        base(r) &&
        FACET_NAMES.every(
          (f) => f === except || filters[f] === undefined || filters[f].includes(r[f]),
        );
      const selected = rows.filter((r) => passes(r, null));
      const label = params.toString();
      expect(body.total, label).toBe(selected.length);

      for (const f of FACET_NAMES) {
        const expected: Record<string, number> = {};
        for (const r of rows.filter((x) => passes(x, f)))
          expected[r[f]] = (expected[r[f]] ?? 0) + 1;
        for (const v of filters[f] ?? []) expected[v] ??= 0;
        expect(body.facets[f], `${label} facet ${f}`).toEqual(expected);
      }

      const results: Record<string, number> = {};
      for (const r of selected) results[r.result] = (results[r.result] ?? 0) + 1;
      expect(body.scorecard.results, label).toEqual(results);
      expect(body.scorecard.restore_s.median, label).toBe(
        median(selected.flatMap((r) => (r.restore_s === null ? [] : [r.restore_s]))),
      );
      expect(body.scorecard.handover_s.median, label).toBe(
        median(selected.flatMap((r) => (r.handover_s === null ? [] : [r.handover_s]))),
      );
      expect(body.scorecard.actions, label).toEqual({
        ran: selected.filter((r) => r.action !== '').length,
        verified: selected.filter((r) => r.action === 'verified').length,
        taken_back: selected.filter((r) => r.action === 'taken_back').length,
        not_verified: selected.filter((r) => r.action === 'not_verified').length,
      });
      expect(body.scorecard.incidents, label).toBe(
        new Set(selected.map((r) => r.incident_id)).size,
      );
    }
  });
});
