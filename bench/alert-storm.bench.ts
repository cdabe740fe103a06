// An alert storm: 50,000 firing alerts in 200 Alertmanager groups (webhook version 4) sent
// as fast as possible to POST /v1/alerts/alertmanager of the bundled service, while one
// console reads GET /v1/live and GET /v1/episodes?scorecard=1 in a loop with the admin
// token. The list's latency during the storm is set against its latency on the same data
// right after (the baseline, in the same run), once the service is quiet: its ledger head
// still and the process (its checkpoint thread copying the storm's WAL back included) under
// 5% of a core for 2 s.
//
// The groups: group g is one service, `storm-<g>` (label service and job), all alerts named
// InstanceDown (a network partition: every service's targets go down at once), 250 alerts
// a group, each a new instance with its own fingerprint. Each group is sent as 10 bodies of
// 25 alerts (Alertmanager's notification of a group holds every alert of it so far; here
// each alert goes once, so every 2xx answer stands for exactly its 25 alerts), the bodies of
// all groups interleaved (body k belongs to group k mod 200), through `ctx.connections`
// concurrent keep-alive fetch loops that take the next body as soon as their answer came.
//
// Before the storm the service is stopped once and BENCH_STORM_HISTORY (default 100,000)
// closed episodes are seeded into its projection tables (bench/seed-episodes.ts), so the
// console reads a list with a history; the storm's episodes are open, listed as `running`.
//
// Exactness afterwards: each 2xx answer lists its 25 alerts as fired with a seq and the
// group's one episode; the ledger's signal.fired events after the storm's start, read whole,
// are exactly the alerts of the 2xx answers (same seq, each fingerprint once), none of a
// non-2xx answer; every other event is accounted for by category (accountFired); GET
// /v1/ledger/verify is ok. Non-2xx answers (a 503 storage_busy) are counted and reported as a
// figure, not hidden and not retried. Expected episodes: one per group (a firing signal
// joins its service's open episode), 200; incidents: one (the policy's default grouping is
// by alertname within 300 s, so the first episode opens it and the other 199 join it).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { databaseFile } from '../server/install/index.js';
import { INGEST_TOKEN, makeDataDir } from '../server/testing/test-server.js';
import {
  accountFired,
  cpuSeconds,
  distribution,
  getJson,
  groupCommit,
  ms,
  percentile,
  startService,
  timedGet,
  verified,
  webhookBody,
  writerStats,
  type Child,
  type LedgerPage,
  type VerifyBody,
} from './harness.js';
import type { BenchContext, Benchmark, Figure } from './run.js';
import { seedFile } from './seed-episodes.js';

const GROUPS = 200;
const PER_GROUP = 250;
const PER_BODY = 25;
const ALERTS = GROUPS * PER_GROUP;
const DEFAULT_HISTORY = 100_000;
/** Console rounds (GET /v1/live, then the list) of the idle baseline. */
const IDLE_ROUNDS = 100;
/** The service is quiet when the ledger's head has not moved for this long… */
const QUIET_MS = 2000;
/** …and it used less than this share of a core meanwhile. */
const IDLE_CPU = 0.05;
const SETTLE_LIMIT_MS = 300_000;
const AIM_LIST_P95_MS = 100;
const LIST = '/v1/episodes?scorecard=1';

function historyWanted(): number {
  const raw = process.env['BENCH_STORM_HISTORY'];
  if (raw === undefined || raw.trim() === '') return DEFAULT_HISTORY;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`BENCH_STORM_HISTORY must be an integer ≥ 0, not ${JSON.stringify(raw)}`);
  return n;
}

interface Body {
  readonly group: number;
  readonly text: string;
  readonly fingerprints: readonly string[];
}

/** Every body of the storm, interleaved across the groups, built before it starts. */
function stormBodies(startsAt: string): Body[] {
  const bodies: Body[] = [];
  for (let b = 0; b < PER_GROUP / PER_BODY; b++) {
    for (let g = 0; g < GROUPS; g++) {
      const service = `storm-${String(g).padStart(3, '0')}`;
      const alerts = Array.from({ length: PER_BODY }, (_, k) => {
        const i = b * PER_BODY + k;
        const instance = `10.1.${String(g)}.${String(i)}:9100`;
        return {
          labels: {
            alertname: 'InstanceDown',
            service,
            job: service,
            instance,
            severity: 'critical',
          },
          annotations: {
            summary: `${instance} of ${service} is unreachable`,
            description: 'up == 0 for 1 minute',
          },
          startsAt,
          generatorURL: 'http://prometheus.bench:9090/graph?g0.expr=up+%3D%3D+0',
          // 16 hex digits, as Alertmanager's; distinct for every alert of the storm.
          fingerprint: (g * 1000 + i).toString(16).padStart(16, '0'),
        };
      });
      bodies.push({
        group: g,
        text: webhookBody(
          {
            groupKey: `{}:{alertname="InstanceDown", service="${service}"}`,
            groupLabels: { alertname: 'InstanceDown', service },
          },
          alerts,
        ),
        fingerprints: alerts.map((a) => a.fingerprint),
      });
    }
  }
  return bodies;
}

interface IntakeAnswer {
  accepted: number;
  duplicates: number;
  signals: {
    fingerprint: string;
    outcome: string;
    seq: number | null;
    episode_id: string | null;
  }[];
}

/** What the storm's answers say, checked body by body as they come. */
class Storm {
  /** fingerprint → the seq its 2xx answer gave. */
  readonly fired = new Map<string, number>();
  /** Fingerprints of bodies that got no answer (a transport error): in the ledger or not. */
  readonly unknown = new Set<string>();
  /** Fingerprints of non-2xx answers: never in the ledger. */
  readonly refused = new Set<string>();
  readonly failures = new Map<string, number>();
  readonly episodeOf = new Map<number, Set<string>>();
  readonly latencies: number[] = [];
  non2xx = 0;
  errors = 0;

  accept(body: Body, took: number, answer: IntakeAnswer): void {
    this.latencies.push(took);
    const wrong = (why: string): Error =>
      new Error(
        `group ${String(body.group)}: a 2xx answer ${why}: ${JSON.stringify(answer).slice(0, 500)}`,
      );
    if (
      answer.accepted !== PER_BODY ||
      answer.duplicates !== 0 ||
      answer.signals.length !== PER_BODY
    )
      throw wrong(`does not hold ${String(PER_BODY)} new signals`);
    const episodes = this.episodeOf.get(body.group) ?? new Set<string>();
    this.episodeOf.set(body.group, episodes);
    answer.signals.forEach((s, k) => {
      if (s.fingerprint !== body.fingerprints[k] || s.outcome !== 'fired' || s.seq === null)
        throw wrong(`lists alert ${String(k)} as ${JSON.stringify(s)}`);
      if (this.fired.has(s.fingerprint)) throw wrong(`fires ${s.fingerprint} a second time`);
      this.fired.set(s.fingerprint, s.seq);
      if (s.episode_id !== null) episodes.add(s.episode_id);
    });
  }

  refuse(body: Body, status: number, text: string): void {
    this.non2xx++;
    let code = 'unreadable';
    try {
      code = String((JSON.parse(text) as { error?: unknown }).error);
    } catch {
      // not JSON: counted as unreadable
    }
    const key = `${String(status)} ${code}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
    for (const f of body.fingerprints) this.refused.add(f);
  }

  lost(body: Body, err: unknown): void {
    this.errors++;
    const key = `error ${err instanceof Error ? err.message : String(err)}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
    for (const f of body.fingerprints) this.unknown.add(f);
  }
}

async function send(url: string, bodies: readonly Body[], connections: number): Promise<Storm> {
  const storm = new Storm();
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${INGEST_TOKEN}` };
  let next = 0;
  const loop = async (): Promise<void> => {
    for (let i = next++; i < bodies.length; i = next++) {
      const body = bodies[i];
      if (body === undefined) return;
      const t0 = performance.now();
      let answer: { ok: boolean; status: number; text: string };
      try {
        const res = await fetch(`${url}/v1/alerts/alertmanager`, {
          method: 'POST',
          headers,
          body: body.text,
        });
        answer = { ok: res.ok, status: res.status, text: await res.text() };
      } catch (err) {
        storm.lost(body, err);
        continue;
      }
      if (answer.ok)
        storm.accept(body, performance.now() - t0, JSON.parse(answer.text) as IntakeAnswer);
      else storm.refuse(body, answer.status, answer.text);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return storm;
}

/** The console: GET /v1/live, then the list, one request at a time, until told to stop. */
async function readConsole(
  url: string,
  rounds: number | (() => boolean),
  history: number,
): Promise<{ list: number[]; live: number[]; running: number }> {
  const list: number[] = [];
  const live: number[] = [];
  let running = 0;
  const more = (): boolean => (typeof rounds === 'number' ? list.length < rounds : rounds());
  while (more()) {
    live.push((await timedGet(`${url}/v1/live`)).ms);
    const r = await timedGet(url + LIST);
    list.push(r.ms);
    const body = JSON.parse(r.text) as { total: number; running: unknown[] };
    if (body.total !== history)
      throw new Error(
        `the list shows ${String(body.total)} closed episodes, not ${String(history)}`,
      );
    running = body.running.length;
  }
  return { list, live, running };
}

/**
 * Wait until the service is quiet: for QUIET_MS the ledger's head has not moved and the
 * process (worker threads included: the checkpoints of the storm's WAL run on one) used
 * under IDLE_CPU of a core. Returns the seconds from the call to the quiet window's start.
 */
async function settle(url: string, pid: number | undefined): Promise<number> {
  const t0 = performance.now();
  let seq = -1;
  let since = t0;
  let cpuSince = cpuSeconds(pid);
  for (;;) {
    const now = (await getJson<{ seq: number }>(`${url}/v1/live`)).seq;
    const t = performance.now();
    const cpu = cpuSeconds(pid);
    if (now !== seq) {
      seq = now;
      since = t;
      cpuSince = cpu;
    } else if (t - since >= QUIET_MS) {
      // NaN (no /proc): the head alone decides.
      if (!((cpu - cpuSince) / ((t - since) / 1000) >= IDLE_CPU)) return (since - t0) / 1000;
      since = t;
      cpuSince = cpu;
    }
    if (t - t0 > SETTLE_LIMIT_MS)
      throw new Error(
        `the service is still busy ${String(SETTLE_LIMIT_MS / 1000)} s after the storm`,
      );
    // Not more often: the polls themselves must stay well under IDLE_CPU.
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every event of `type` after `afterSeq`, oldest first, a page of 2,000 at a time. */
async function eventsOf(
  url: string,
  type: string,
  afterSeq: number,
): Promise<LedgerPage['events']> {
  const out: LedgerPage['events'] = [];
  for (let cursor = afterSeq; ;) {
    const page = await getJson<LedgerPage>(
      `${url}/v1/ledger?type=${type}&after_seq=${String(cursor)}&order=asc&limit=2000`,
    );
    out.push(...page.events.filter((e) => e.type === type));
    const last = page.events.at(-1);
    if (!page.more || last === undefined) return out;
    cursor = last.seq;
  }
}

/** The ledger's signal.fired after the storm's start are exactly the 2xx answers' alerts. */
async function checkLedger(url: string, before: VerifyBody, storm: Storm): Promise<number> {
  const events = await eventsOf(url, 'signal.fired', before.head.seq);
  const seen = new Set<string>();
  for (const e of events) {
    const f = String(e.data['fingerprint']);
    const why = seen.has(f)
      ? 'a second time'
      : storm.refused.has(f)
        ? 'though its body was answered non-2xx'
        : storm.fired.has(f) && storm.fired.get(f) !== e.seq
          ? `at seq ${String(e.seq)}, not ${String(storm.fired.get(f))} as answered`
          : !storm.fired.has(f) && !storm.unknown.has(f)
            ? 'though no body sent it'
            : null;
    if (why !== null) throw new Error(`the ledger holds signal.fired of ${f} ${why}`);
    seen.add(f);
  }
  const missing = [...storm.fired.keys()].filter((f) => !seen.has(f));
  if (missing.length > 0)
    throw new Error(
      `${String(missing.length)} alerts answered 2xx have no signal.fired, e.g. ${missing.slice(0, 5).join(', ')}`,
    );
  return events.length;
}

async function run(ctx: BenchContext): Promise<readonly Figure[]> {
  const history = historyWanted();
  const { dir, machineIdFile } = makeDataDir();
  let service: Child | null = null;
  try {
    if (history > 0) {
      // Migrations first, then the history straight into the projection tables.
      service = await startService(ctx, dir, machineIdFile);
      await service.stop();
      service = null;
      const seeded = seedFile(databaseFile(join(dir, 'data')), history, Date.now());
      ctx.log(
        `seeded ${history.toLocaleString('en-GB')} closed episodes (${seeded.incidents.toLocaleString('en-GB')} incidents) ` +
          `in ${seeded.seconds.toFixed(1)} s`,
      );
    }
    service = await startService(ctx, dir, machineIdFile);
    const url = service.url;
    const cold = await timedGet(url + LIST); // loads the list's index
    ctx.log(`the list's first request (index load): ${ms(cold.ms)}`);

    const bodies = stormBodies(new Date().toISOString());
    const bytes = bodies.reduce((n, b) => n + Buffer.byteLength(b.text), 0);
    ctx.log(
      `${String(bodies.length)} webhook bodies of ${String(PER_BODY)} alerts (${(bytes / bodies.length / 1024).toFixed(1)} KiB each), ` +
        `${String(GROUPS)} groups of ${String(PER_GROUP)}, ${String(ctx.connections)} connections`,
    );

    const before = await verified(url, 'before the storm');
    const stats0 = await writerStats(url);
    const cpu0 = cpuSeconds(service.pid);
    let storming = true;
    const t0 = performance.now();
    // Settled at once, so that a console failure mid-storm is not an unhandled rejection.
    const reading = readConsole(url, () => storming, history).then(
      (r) => ({ r }),
      (err: unknown) => ({ err }),
    );
    const storm = await send(url, bodies, ctx.connections).finally(() => {
      storming = false;
    });
    const stormS = (performance.now() - t0) / 1000;
    const cpuS = cpuSeconds(service.pid) - cpu0;
    const stats1 = await writerStats(url);
    const read = await reading;
    if ('err' in read) throw read.err;
    const during = read.r;

    const settleS = await settle(url, service.pid);
    const idle = await readConsole(url, IDLE_ROUNDS, history);
    const after = await verified(url, 'after the storm');
    const fired = await checkLedger(url, before, storm);
    const others = await accountFired(url, before, after, fired);
    const opened = await eventsOf(url, 'episode.opened', before.head.seq);
    const incidents = await eventsOf(url, 'incident.opened', before.head.seq);
    const answeredEpisodes = new Set([...storm.episodeOf.values()].flatMap((s) => [...s]));
    const split = [...storm.episodeOf.values()].filter((s) => s.size !== 1).length;

    const alerts = storm.fired.size;
    const rate = alerts / stormS;
    const gc = groupCommit(stats0, stats1, stormS);
    ctx.log(
      `storm: ${alerts.toLocaleString('en-GB')} of ${ALERTS.toLocaleString('en-GB')} alerts answered 2xx in ${stormS.toFixed(1)} s, ` +
        `${rate.toFixed(0)} alerts/s; a body's answer p50 ${ms(percentile(storm.latencies, 50))}, ` +
        `p99 ${ms(percentile(storm.latencies, 99))}; the server used ${cpuS.toFixed(1)} CPU s ` +
        `(${((cpuS * 1000) / alerts).toFixed(3)} ms an alert, ${((cpuS / stormS) * 100).toFixed(0)}% of a core)`,
    );
    ctx.log(
      storm.failures.size === 0
        ? 'every body answered 2xx'
        : `NOT 2xx: ${[...storm.failures].map(([k, n]) => `${String(n)} × ${k}`).join(', ')}`,
    );
    const line = (name: string, xs: readonly number[]): string =>
      `${name} p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))}, p99 ${ms(percentile(xs, 99))} over ${String(xs.length)}`;
    ctx.log(`console during the storm: ${line('list', during.list)}; ${line('live', during.live)}`);
    ctx.log(`console idle after: ${line('list', idle.list)}; ${line('live', idle.live)}`);
    ctx.log(
      `the service was quiet ${settleS.toFixed(1)} s after the last answer; then ${String(fired)} signal.fired ` +
        `(each alert answered 2xx once, ${String(fired)} distinct fingerprints) + ${others.join(' + ')} + ` +
        `${String(after.segments - before.segments)} seals = head seq ${String(after.head.seq)}; verify ok`,
    );
    ctx.log(
      `episodes opened ${String(opened.length)} (expected ${String(GROUPS)}: one per service), ` +
        `the answers name ${String(answeredEpisodes.size)} episodes, ${String(split)} groups over more than one; ` +
        `incidents opened ${String(incidents.length)} (expected 1: grouped by alertname within 300 s); ` +
        `the console lists ${String(idle.running)} running`,
    );
    ctx.log(
      `writer group commit (storm): ${String(gc.commits)} commits for ${String(gc.writes)} writes, mean batch ` +
        `${gc.batchMean.toFixed(1)}, mean commit ${gc.commitMs.toFixed(2)} ms; batch sizes ${distribution(stats0, stats1)}`,
    );

    return [
      { name: 'alert_storm.alerts_per_s', value: rate, unit: 'alerts/s', baseline: null },
      {
        name: 'alert_storm.list_p95',
        value: percentile(during.list, 95),
        unit: 'ms',
        baseline: percentile(idle.list, 95),
        aim: { on: 'value', atMost: AIM_LIST_P95_MS },
      },
      {
        name: 'alert_storm.list_p99',
        value: percentile(during.list, 99),
        unit: 'ms',
        baseline: percentile(idle.list, 99),
      },
      {
        name: 'alert_storm.live_p95',
        value: percentile(during.live, 95),
        unit: 'ms',
        baseline: percentile(idle.live, 95),
      },
      { name: 'alert_storm.list_reads', value: during.list.length, unit: 'reads', baseline: null },
      {
        name: 'alert_storm.body_latency_p99',
        value: percentile(storm.latencies, 99),
        unit: 'ms',
        baseline: null,
      },
      {
        name: 'alert_storm.non_2xx',
        value: storm.non2xx + storm.errors,
        unit: 'answers',
        baseline: null,
        aim: { on: 'value', atMost: 0 },
      },
      { name: 'alert_storm.signals_fired', value: fired, unit: 'events', baseline: ALERTS },
      {
        name: 'alert_storm.episodes_opened',
        value: opened.length,
        unit: 'episodes',
        baseline: GROUPS,
      },
      {
        name: 'alert_storm.incidents_opened',
        value: incidents.length,
        unit: 'incidents',
        baseline: 1,
      },
      {
        name: 'alert_storm.cpu_ms_per_alert',
        value: (cpuS * 1000) / alerts,
        unit: 'ms',
        baseline: null,
      },
      { name: 'alert_storm.settle_s', value: settleS, unit: 's', baseline: null },
    ];
  } finally {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: 'alert-storm',
  title: `an alert storm: ${ALERTS.toLocaleString('en-GB')} alerts in ${String(GROUPS)} Alertmanager groups while the console reads the episode list, against the list idle after`,
  run,
};
export default bench;
