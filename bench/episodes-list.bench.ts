// GET /v1/episodes?scorecard=1 with facets over 1,000,000 closed episodes, against the
// real bundled service (`node dist/server.mjs`) in a child process, through real HTTP on a
// loopback port with the admin token. The aims of the issue: p95 under 100 ms, and p95 at
// most 50 ms for a `q=` text search (the full-text index of migration *_episodes_fts).
//
// The service is started once on a fresh data folder (migrations, then PUT /v1/impact so
// that the scorecard computes minutes_saved) and stopped; then bench/seed-episodes.ts
// writes the episodes and their incidents STRAIGHT into the `episodes` and `incidents`
// projection tables with SQL (one transaction; the triggers of the episodes table fill its
// full-text index as they do for every write). Through the ledger a million episodes would
// take far too long, and the list reads only those tables. The service is started
// again: its first list request loads the in-memory index from SQLite ("cold load",
// reported apart). Then, after a few warm-up requests per shape, ROUNDS rounds, each one
// request of every shape in turn (one at a time, so each latency is the request's alone),
// one `q=` text search (its total checked against a LIKE count of the same file), and the
// baseline: raw SQLite (better-sqlite3, read-only, on the same file, in this process)
// running `SELECT result, count(*) FROM episodes GROUP BY result`.
// Interleaving the contenders round after round means a change in the machine's load
// weighs on all alike. Last, bench/list-intake.ts times POST /v1/events alone and while the
// list is read, to show that the list's reads leave the event loop free.
//
// BENCH_EPISODES (default 1,000,000) seeds fewer or more, e.g. for a quick check.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { databaseFile } from '../server/install/index.js';
import { ADMIN_TOKEN, makeDataDir } from '../server/testing/test-server.js';
import { cpuSeconds, ms, percentile, startService, timedGet, type Child } from './harness.js';
import type { BenchContext, Benchmark, Figure } from './run.js';
import { intakeUnderReads } from './list-intake.js';
import { seedFile } from './seed-episodes.js';

const DEFAULT_EPISODES = 1_000_000;
const ROUNDS = 50;
const WARMUP = 3;
const AIM_MS = 100;
const Q_AIM_MS = 50;
const HEADERS = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Shape {
  readonly name: string;
  readonly query: string;
}

interface ListBody {
  total: number;
  episodes: unknown[];
  facets: Record<string, Record<string, number>>;
  scorecard?: { episodes: number; incidents: number; minutes_saved: number | null };
  histogram?: unknown[];
}

function episodesWanted(): number {
  const raw = process.env['BENCH_EPISODES'];
  if (raw === undefined || raw.trim() === '') return DEFAULT_EPISODES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1000)
    throw new Error(`BENCH_EPISODES must be an integer ≥ 1000, not ${JSON.stringify(raw)}`);
  return n;
}

async function putImpact(url: string): Promise<void> {
  const res = await fetch(`${url}/v1/impact`, {
    method: 'PUT',
    headers: { ...HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify({
      currency: 'EUR',
      engineer_hour: 90,
      triage_min: 10,
      fix_min: 30,
      manual_resolve_min: 45,
      downtime_hour: 5000,
      callout: 150,
      annual_cost: 20000,
    }),
  });
  if (!res.ok) throw new Error(`PUT /v1/impact: ${String(res.status)} ${await res.text()}`);
}

class Series {
  readonly ms: number[] = [];
  cpuS = 0;
  bytes = 0;
  line(name: string): string {
    const n = this.ms.length;
    return (
      `${name}: p50 ${ms(percentile(this.ms, 50))}, p95 ${ms(percentile(this.ms, 95))}, ` +
      `max ${ms(Math.max(...this.ms))} over ${String(n)}` +
      (this.cpuS > 0 ? `; server CPU ${((this.cpuS * 1000) / n).toFixed(1)} ms a request` : '') +
      (this.bytes > 0 ? `; ${(this.bytes / n / 1024).toFixed(1)} KiB an answer` : '')
    );
  }
}

async function run(ctx: BenchContext): Promise<readonly Figure[]> {
  const count = episodesWanted();
  const { dir, machineIdFile } = makeDataDir();
  const file = databaseFile(join(dir, 'data'));
  let service: Child | null = null;
  try {
    // 1. A fresh service: migrations, start-up events, the impact figures; then stop it.
    service = await startService(ctx, dir, machineIdFile);
    await putImpact(service.url);
    await service.stop();
    service = null;

    // 2. The episodes and incidents, straight into the projection tables.
    const seeded = seedFile(file, count, Date.now());
    const busiest = seeded.perService[0] ?? ['payments', 0];
    ctx.log(
      `seeded ${seeded.episodes.toLocaleString('en-GB')} episodes and ${seeded.incidents.toLocaleString('en-GB')} ` +
        `incidents in ${seeded.seconds.toFixed(1)} s (${(seeded.episodes / seeded.seconds).toFixed(0)} episodes/s, ` +
        `one transaction): ${(seeded.episodes / seeded.incidents).toFixed(2)} episodes an incident, ` +
        `${((seeded.related / seeded.episodes) * 100).toFixed(1)}% related, handover_s null in ` +
        `${((seeded.handoverNull / seeded.episodes) * 100).toFixed(1)}%, restore_s set in ` +
        `${((seeded.restoreSet / seeded.episodes) * 100).toFixed(1)}%; busiest service ${busiest[0]} ` +
        `(${((busiest[1] / seeded.episodes) * 100).toFixed(1)}%)`,
    );

    // 3. The service again, on the seeded file; its first list request loads the index.
    service = await startService(ctx, dir, machineIdFile);
    const base = `${service.url}/v1/episodes?`;
    const cold = await timedGet(`${base}scorecard=1`);
    const first = JSON.parse(cold.text) as ListBody;
    if (first.total !== count || first.scorecard?.episodes !== count)
      throw new Error(
        `the list shows ${String(first.total)} episodes (scorecard ${String(first.scorecard?.episodes)}), not ${String(count)}`,
      );
    if (typeof first.scorecard.minutes_saved !== 'number')
      throw new Error('minutes_saved is not computed: the impact figures were not set');
    ctx.log(`cold load (the first request, which loads the index): ${ms(cold.ms)}`);

    const shapes: Shape[] = [
      { name: 'all', query: 'scorecard=1' },
      { name: 'range_30d', query: 'scorecard=1&range=30d' },
      {
        name: 'service_result',
        query: `scorecard=1&service=${encodeURIComponent(busiest[0])}&result=restored,resolved`,
      },
      { name: 'histogram', query: 'scorecard=1&histogram=day&decision=act,ask_human' },
      { name: 'latest_5000', query: 'scorecard=1&latest=5000' },
      { name: 'group_incident', query: 'scorecard=1&group=incident' },
    ];
    const q: Shape = { name: 'q_text', query: 'scorecard=1&q=checkout' };
    // What q must find: the LIKE scan q was before its index, counted once on the file.
    const likeCount = new Database(file, { readonly: true, fileMustExist: true });
    let qTotal: number;
    try {
      const columns = ['episode_id', 'service', 'alerts', 'confirmed', 'note', 'fix', 'diagnosis'];
      qTotal =
        likeCount
          .prepare<string[], number>(
            `SELECT count(*) FROM episodes WHERE status = 'closed' AND (${columns.map((c) => `${c} LIKE ?`).join(' OR ')})`,
          )
          .pluck()
          .get(...columns.map(() => '%checkout%')) ?? -1;
    } finally {
      likeCount.close();
    }

    // What each shape must answer: a list of the seeded rows, never an empty one by mistake.
    const check = (shape: Shape, text: string): void => {
      const body = JSON.parse(text) as ListBody;
      const bad = (why: string): Error =>
        new Error(`${shape.name} (${shape.query}): ${why}; total ${String(body.total)}`);
      if (body.total === 0 || body.episodes.length === 0) throw bad('nothing listed');
      if (body.scorecard === undefined) throw bad('no scorecard');
      if (shape.name === 'all' && body.total !== count) throw bad('not every episode');
      if (shape.name === 'latest_5000' && body.total !== Math.min(5000, count))
        throw bad('not the newest 5000');
      if (shape.name === 'group_incident' && body.total !== seeded.incidents)
        throw bad(`not one row per incident (${String(seeded.incidents)})`);
      if (shape.name === 'histogram' && (body.histogram?.length ?? 0) < 300)
        throw bad('no histogram of the year');
      if (shape.name === 'q_text' && body.total !== qTotal)
        throw bad(`not what LIKE '%checkout%' finds (${String(qTotal)})`);
    };

    // The baseline: one GROUP BY over the same table, raw, on a read-only connection.
    const raw = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const groupBy = raw.prepare<[], { result: string | null; n: number }>(
        'SELECT result, count(*) AS n FROM episodes GROUP BY result',
      );
      const sqlite = new Series();
      const timedSql = (): void => {
        const t0 = performance.now();
        const rows = groupBy.all();
        sqlite.ms.push(performance.now() - t0);
        const n = rows.reduce((s, r) => s + r.n, 0);
        if (n < count) throw new Error(`GROUP BY result counted ${String(n)} rows`);
      };

      for (let i = 0; i < WARMUP; i++) {
        for (const shape of shapes) check(shape, (await timedGet(base + shape.query)).text);
        check(q, (await timedGet(base + q.query)).text);
        timedSql();
      }
      sqlite.ms.length = 0;

      const series = new Map(shapes.map((s) => [s.name, new Series()] as const));
      const text = new Series();
      const all = new Series();
      const t0 = performance.now();
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate the starting shape so that none always follows the SQL baseline or q.
        for (let k = 0; k < shapes.length; k++) {
          const shape = shapes[(round + k) % shapes.length]!;
          const s = series.get(shape.name)!;
          const cpu0 = cpuSeconds(service.pid);
          const r = await timedGet(base + shape.query);
          s.cpuS += cpuSeconds(service.pid) - cpu0;
          s.ms.push(r.ms);
          s.bytes += r.text.length;
          all.ms.push(r.ms);
          if (round === 0) check(shape, r.text);
        }
        const cpu0 = cpuSeconds(service.pid);
        const r = await timedGet(base + q.query);
        text.cpuS += cpuSeconds(service.pid) - cpu0;
        text.ms.push(r.ms);
        text.bytes += r.text.length;
        timedSql();
      }
      const elapsed = (performance.now() - t0) / 1000;

      ctx.log(
        `${String(ROUNDS)} rounds in ${elapsed.toFixed(1)} s, one request at a time over keep-alive HTTP:`,
      );
      for (const shape of shapes)
        ctx.log(series.get(shape.name)!.line(`${shape.name} ${shape.query}`));
      ctx.log(all.line('every shape together'));
      ctx.log(text.line(`q (full-text index; ${String(qTotal)} match) ${q.query}`));
      ctx.log(
        sqlite.line('baseline: raw SQLite SELECT result, count(*) FROM episodes GROUP BY result'),
      );

      // 4. The event loop while the list is read: durable intake alone and under reads.
      const intake = await intakeUnderReads(ctx, service.url, `${base}scorecard=1&group=incident`);

      const sqlP95 = percentile(sqlite.ms, 95);
      const figures: Figure[] = [
        {
          name: 'episodes_list.latency_p95',
          value: percentile(all.ms, 95),
          unit: 'ms',
          baseline: sqlP95,
          aim: { on: 'value', atMost: AIM_MS },
        },
        {
          name: 'episodes_list.latency_p50',
          value: percentile(all.ms, 50),
          unit: 'ms',
          baseline: percentile(sqlite.ms, 50),
        },
        {
          name: 'episodes_list.latency_max',
          value: Math.max(...all.ms),
          unit: 'ms',
          baseline: null,
        },
      ];
      for (const shape of shapes) {
        figures.push({
          name: `episodes_list.${shape.name}.latency_p95`,
          value: percentile(series.get(shape.name)!.ms, 95),
          unit: 'ms',
          baseline: sqlP95,
        });
      }
      figures.push(
        {
          name: 'episodes_list.q_text.latency_p95',
          value: percentile(text.ms, 95),
          unit: 'ms',
          baseline: sqlP95,
          aim: { on: 'value', atMost: Q_AIM_MS },
        },
        { name: 'episodes_list.cold_load', value: cold.ms, unit: 'ms', baseline: null },
        {
          // An acknowledgement while two loops read the heaviest shape, against one alone.
          name: 'episodes_list.intake_under_reads.p99',
          value: percentile(intake.reading, 99),
          unit: 'ms',
          baseline: percentile(intake.alone, 99),
        },
        {
          name: 'episodes_list.intake_under_reads.p50',
          value: percentile(intake.reading, 50),
          unit: 'ms',
          baseline: percentile(intake.alone, 50),
        },
        { name: 'episodes_list.sqlite_group_by_p95', value: sqlP95, unit: 'ms', baseline: null },
        {
          name: 'episodes_list.seed_per_s',
          value: seeded.episodes / seeded.seconds,
          unit: 'episodes/s',
          baseline: null,
        },
      );
      return figures;
    } finally {
      raw.close();
    }
  } finally {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: 'episodes-list',
  title: `GET /v1/episodes?scorecard=1 with facets over ${episodesWanted().toLocaleString('en-GB')} closed episodes, against a raw SQLite GROUP BY`,
  run,
};
export default bench;
