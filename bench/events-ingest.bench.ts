// POST /v1/events with durable commits (WAL, synchronous=FULL, group commit) against the
// real bundled service (`node dist/server.mjs`) in a child process, as a ratio to a bare
// Fastify route (bench/bare-fastify.ts, its own child process) measured the same way in
// the same run: same connections, pipelining 1, same body and headers. Each target is
// warmed up for WARMUP_S, then measured in ROUNDS phases that alternate between the two
// targets (A B B A A B B A), each phase a fixed number of requests sized from the target's
// last rate so that each target is measured for about BENCH_DURATION_S in all.
//
// A fixed number of requests (not a duration) means autocannon abandons no request in
// flight, so every event the service committed in a measured phase was answered and
// counted: the ledger head afterwards must equal exactly what was there before plus the
// 2xx answers plus the seal events of the segments closed meanwhile. The writer's
// group-commit histograms come from GET /metrics.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  ADMIN_TOKEN,
  INGEST_TOKEN,
  makeDataDir,
  testEnv,
} from '../server/shared/testing/test-server.js';
import type { BenchContext, Benchmark, Figure } from './run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = fileURLToPath(new URL('../dist/server.mjs', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-fastify.ts', import.meta.url));
const BODY = JSON.stringify({
  type: 'human.deploy',
  actor: 'ci:bench',
  data: { service: 'pay', version: '1.2.3' },
});
const WARMUP_S = 2;

interface Child {
  readonly url: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => {
        resolve(port);
      });
    });
  });
}

/** Keep the last few KiB of a child's output for error messages; never let a pipe fill. */
function tail(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer): void => {
    text = (text + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

function stopper(child: ChildProcess, name: string): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve();
        return;
      }
      const kill = setTimeout(() => {
        process.stderr.write(`${name} did not stop within 10 s of SIGTERM; killing it\n`);
        child.kill('SIGKILL');
      }, 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

function exited(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(signal !== null ? `signal ${signal}` : `code ${String(code)}`);
    });
  });
}

async function startService(
  ctx: BenchContext,
  dataRoot: string,
  machineIdFile: string,
): Promise<Child> {
  if (!existsSync(SERVER))
    throw new Error(`${SERVER} is missing: run \`npm run bench\`, which bundles it first`);
  const port = await freePort();
  const env = testEnv(dataRoot, machineIdFile, {
    SVC_INSTANCE: 'bench',
    SVC_LOG_LEVEL: 'warn',
    SVC_BIND: '127.0.0.1',
    SVC_PORT: String(port),
  });
  const args =
    ctx.cpuProfDir === null ? [SERVER] : ['--cpu-prof', `--cpu-prof-dir=${ctx.cpuProfDir}`, SERVER];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = tail(child);
  const url = `http://127.0.0.1:${String(port)}`;
  const gone = exited(child);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const early = await Promise.race([
      gone,
      new Promise<null>((r) =>
        setTimeout(() => {
          r(null);
        }, 100),
      ),
    ]);
    if (early !== null)
      throw new Error(`the service exited (${early}) before it answered:\n${output()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer /health within 30 s:\n${output()}`);
    }
  }
  return { url, output, stop: stopper(child, 'the service') };
}

async function startBare(): Promise<Child> {
  // tsx only compiles the file at load; the route runs as plain JavaScript under Node.
  const child = spawn(process.execPath, ['--import', 'tsx', BARE], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = tail(child);
  const gone = exited(child);
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const line = /^\{"port":(\d+)\}$/m.exec(buffered);
      if (line?.[1] !== undefined) {
        child.stdout?.off('data', onData);
        resolve(Number(line[1]));
      }
    };
    child.stdout?.on('data', onData);
    void gone.then((how) => {
      reject(new Error(`bare-fastify exited (${how}) before it listened:\n${output()}`));
    });
    setTimeout(() => {
      reject(new Error(`bare-fastify did not listen within 30 s:\n${output()}`));
    }, 30_000).unref();
  });
  return { url: `http://127.0.0.1:${String(port)}`, output, stop: stopper(child, 'bare-fastify') };
}

interface Load {
  readonly result: autocannon.Result;
  /** From the first request to the last answer, seconds. */
  readonly elapsedS: number;
  /** 2xx answers per second over elapsedS. */
  readonly rps: number;
  /** Answers per second in the second half of a timed phase (warmer than its start). */
  readonly steadyRps: number;
  /** Latency of every 2xx answer, ms. */
  readonly latencies: readonly number[];
}

async function load(
  ctx: BenchContext,
  url: string,
  phase: { durationS: number } | { amount: number },
): Promise<Load> {
  const started = performance.now();
  let last = started;
  const lateFrom = 'durationS' in phase ? started + (phase.durationS / 2) * 1000 : Infinity;
  let late = 0;
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections: ctx.connections,
        pipelining: 1,
        body: BODY,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${INGEST_TOKEN}` },
        ...('amount' in phase ? { amount: phase.amount } : { duration: phase.durationS }),
      },
      (err: unknown, res: autocannon.Result) => {
        if (err !== null && err !== undefined)
          reject(err instanceof Error ? err : new Error(JSON.stringify(err)));
        else resolve(res);
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      last = performance.now();
      if (last >= lateFrom) late++;
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const elapsedS = (last - started) / 1000;
  const rps = elapsedS > 0 ? result['2xx'] / elapsedS : 0;
  const lateS = (last - lateFrom) / 1000;
  return { result, elapsedS, rps, steadyRps: lateS > 0.2 ? late / lateS : rps, latencies };
}

/** Fail loudly: a benchmark of errors measures nothing. */
function mustBeClean(what: string, l: Load): void {
  const r = l.result;
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r['2xx'] === 0) {
    const codes = JSON.stringify(r.statusCodeStats ?? {});
    throw new Error(
      `${what}: ${String(r.non2xx)} non-2xx answers (status codes ${codes}), ${String(r.errors)} errors, ` +
        `${String(r.timeouts)} timeouts, ${String(r['2xx'])} 2xx`,
    );
  }
}

/** One target's measured phases added up. */
class Tally {
  answers = 0;
  non2xx = 0;
  elapsedS = 0;
  private readonly lat: number[] = [];
  add(l: Load): void {
    this.answers += l.result['2xx'];
    this.non2xx += l.result.non2xx;
    this.elapsedS += l.elapsedS;
    for (const x of l.latencies) this.lat.push(x);
  }
  get rps(): number {
    return this.elapsedS > 0 ? this.answers / this.elapsedS : 0;
  }
  percentile(p: number): number {
    const sorted = Float64Array.from(this.lat).sort();
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  }
}

interface VerifyBody {
  ok: boolean;
  checked: number;
  head: { seq: number };
  segments: number;
  failure: unknown;
  events_per_s: number;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (!res.ok) throw new Error(`GET ${url}: ${String(res.status)} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The writer's group-commit histograms from GET /metrics (Prometheus text). */
interface WriterStats {
  readonly commits: number;
  readonly writes: number;
  readonly commitSeconds: number;
  readonly buckets: ReadonlyMap<string, number>;
}

async function writerStats(url: string): Promise<WriterStats> {
  const res = await fetch(`${url}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (!res.ok) throw new Error(`GET /metrics: ${String(res.status)}`);
  const text = await res.text();
  const num = (re: RegExp): number => Number(re.exec(text)?.[1] ?? NaN);
  const buckets = new Map<string, number>();
  for (const m of text.matchAll(/^svc_writer_batch_size_bucket\{le="([^"]+)"\} (\S+)$/gm)) {
    if (m[1] !== undefined) buckets.set(m[1], Number(m[2]));
  }
  return {
    commits: num(/^svc_writer_batch_size_count (\S+)$/m),
    writes: num(/^svc_writer_batch_size_sum (\S+)$/m),
    commitSeconds: num(/^svc_writer_commit_seconds_sum (\S+)$/m),
    buckets,
  };
}

/** Batch-size distribution between two snapshots, as "≤1: n, 2: n, 3–4: n …". */
function distribution(a: WriterStats, b: WriterStats): string {
  const parts: string[] = [];
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of b.buckets) {
    const delta = count - (a.buckets.get(le) ?? 0);
    const inBucket = delta - prevCount;
    const upper = le === '+Inf' ? Infinity : Number(le);
    const label =
      upper === Infinity
        ? `>${String(prevLe)}`
        : upper === prevLe + 1
          ? String(upper)
          : `${String(prevLe + 1)}–${String(upper)}`;
    if (inBucket > 0) parts.push(`${label}: ${String(inBucket)}`);
    prevLe = upper;
    prevCount = delta;
  }
  return parts.join(', ');
}

const ms = (n: number): string => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

/**
 * Measured phases alternate between the two targets (A B B A …), so that a change in the
 * machine's load during the run (it may be shared) weighs on both alike.
 */
const ROUNDS = 4;

async function run(ctx: BenchContext): Promise<readonly Figure[]> {
  const { dir, machineIdFile } = makeDataDir();
  let service: Child | null = null;
  let bare: Child | null = null;
  try {
    bare = await startBare();
    service = await startService(ctx, dir, machineIdFile);
    const bareUrl = `${bare.url}/bare`;
    const url = service.url;
    const events = `${url}/v1/events`;
    const atStart = await getJson<VerifyBody>(`${url}/v1/ledger/verify`);
    const startupEvents = atStart.head.seq;

    const bareWarm = await load(ctx, bareUrl, { durationS: WARMUP_S });
    mustBeClean('bare Fastify POST /bare warm-up', bareWarm);
    const warm = await load(ctx, events, { durationS: WARMUP_S });
    mustBeClean('POST /v1/events warm-up', warm);
    await new Promise((r) => setTimeout(r, 300)); // requests abandoned when the warm-up stopped, and a seal, settle
    const before = await getJson<VerifyBody>(`${url}/v1/ledger/verify`);
    const beforeStats = await writerStats(url);

    // Fixed numbers of requests, each phase sized from the target's last known rate (the
    // warm-up's second half, then the previous phase) to last durationS / ROUNDS: no
    // request is left in flight when a phase ends.
    const bareTally = new Tally();
    const svcTally = new Tally();
    const targets = [
      { what: 'bare Fastify POST /bare', url: bareUrl, rps: bareWarm.steadyRps, tally: bareTally },
      { what: 'POST /v1/events', url: events, rps: warm.steadyRps, tally: svcTally },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of round % 2 === 0 ? targets : [...targets].reverse()) {
        const amount = Math.max(ctx.connections * 50, Math.round((t.rps * ctx.durationS) / ROUNDS));
        const l = await load(ctx, t.url, { amount });
        mustBeClean(t.what, l);
        t.tally.add(l);
        t.rps = l.rps;
      }
    }

    const afterStats = await writerStats(url);
    const after = await getJson<VerifyBody>(`${url}/v1/ledger/verify`);
    if (!after.ok)
      throw new Error(
        `GET /v1/ledger/verify after the run is not ok: ${JSON.stringify(after.failure)}`,
      );
    const seals = after.segments - before.segments;
    const expected = before.head.seq + svcTally.answers + seals;
    if (after.head.seq !== expected) {
      throw new Error(
        `ledger head seq ${String(after.head.seq)} after the run, expected ${String(expected)} ` +
          `(${String(before.head.seq)} before + ${String(svcTally.answers)} answered 2xx + ${String(seals)} seal events)`,
      );
    }
    const warmCommitted = before.head.seq - startupEvents - (before.segments - atStart.segments);

    const commits = afterStats.commits - beforeStats.commits;
    const writes = afterStats.writes - beforeStats.writes;
    const commitMs = ((afterStats.commitSeconds - beforeStats.commitSeconds) / commits) * 1000;
    const batchMean = writes / commits;

    const line = (name: string, t: Tally): string =>
      `${name}: ${t.rps.toFixed(0)} req/s (${String(t.answers)} answers in ${t.elapsedS.toFixed(1)} s, ${String(ROUNDS)} phases), ` +
      `p50 ${ms(t.percentile(50))}, p99 ${ms(t.percentile(99))}`;
    ctx.log(line('bare Fastify POST /bare', bareTally));
    ctx.log(line('service POST /v1/events', svcTally));
    ctx.log(
      `ledger: ${String(startupEvents)} start-up events + ${String(warmCommitted)} warm-up events ` +
        `(${String(warm.result['2xx'])} answered; the others were in flight when the warm-up stopped) + ` +
        `${String(svcTally.answers)} measured 2xx + ${String(after.segments - atStart.segments)} seal events ` +
        `= head seq ${String(after.head.seq)}; verify ok (${String(after.segments)} segments)`,
    );
    ctx.log(
      `writer group commit (measured phases): ${String(commits)} commits for ${String(writes)} writes, ` +
        `mean batch ${batchMean.toFixed(1)}, mean commit ${commitMs.toFixed(2)} ms (SQL + WAL write + fsync), ` +
        `${(commits / svcTally.elapsedS).toFixed(0)} commits/s, event loop in commits ${((commits * commitMs) / 10 / svcTally.elapsedS).toFixed(0)}% of the time`,
    );
    ctx.log(`writer batch sizes: ${distribution(beforeStats, afterStats)}`);

    return [
      {
        name: 'events_ingest.requests_per_s',
        value: svcTally.rps,
        unit: 'req/s',
        baseline: bareTally.rps,
        aim: { on: 'ratio', atLeast: 0.5 },
      },
      {
        name: 'events_ingest.bare_fastify.requests_per_s',
        value: bareTally.rps,
        unit: 'req/s',
        baseline: null,
      },
      {
        name: 'events_ingest.latency_p50',
        value: svcTally.percentile(50),
        unit: 'ms',
        baseline: bareTally.percentile(50),
      },
      {
        name: 'events_ingest.latency_p99',
        value: svcTally.percentile(99),
        unit: 'ms',
        baseline: bareTally.percentile(99),
      },
      {
        name: 'events_ingest.non_2xx',
        value: svcTally.non2xx + warm.result.non2xx,
        unit: 'answers',
        baseline: null,
      },
      {
        name: 'events_ingest.writer_batch_mean',
        value: batchMean,
        unit: 'writes/commit',
        baseline: null,
      },
      {
        name: 'events_ingest.writer_commits_per_s',
        value: commits / svcTally.elapsedS,
        unit: 'commits/s',
        baseline: null,
      },
      { name: 'events_ingest.writer_commit_mean', value: commitMs, unit: 'ms', baseline: null },
      { name: 'events_ingest.ledger_head_seq', value: after.head.seq, unit: 'seq', baseline: null },
      {
        name: 'events_ingest.startup_events',
        value: startupEvents,
        unit: 'events',
        baseline: null,
      },
    ];
  } finally {
    await bare?.stop();
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: 'events-ingest',
  title: 'POST /v1/events with durable commits, against a bare Fastify route',
  run,
};
export default bench;
