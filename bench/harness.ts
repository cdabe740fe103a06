// What the HTTP benchmarks share: the bundled service (`node dist/server.mjs`) started as a
// child process on a free loopback port with a temporary SVC_DATA, child-process plumbing,
// autocannon phases (timed warm-ups, then fixed request counts that alternate between the
// targets), the tallies of the measured phases, and the service's admin reads (ledger
// verify, the writer's group-commit histograms from GET /metrics).
//
// A fixed number of requests (not a duration) means autocannon abandons no request in
// flight, so everything a target did in a measured phase was answered and counted.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from '../server/testing/processes.js';
import { ADMIN_TOKEN, testEnv } from '../server/testing/test-server.js';

export { freePort };
import type { BenchContext } from './run.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = fileURLToPath(new URL('../dist/server.mjs', import.meta.url));

export interface Child {
  readonly url: string;
  /** The process id, for its CPU time (cpuSeconds). */
  readonly pid: number | undefined;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Keep the last few KiB of a child's output for error messages; never let a pipe fill. */
export function tail(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer): void => {
    text = (text + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

export function stopper(child: ChildProcess, name: string): () => Promise<void> {
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

export function exited(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(signal !== null ? `signal ${signal}` : `code ${String(code)}`);
    });
  });
}

/** Poll `readyUrl` every 100 ms until it answers 2xx; fail if the child exits first. */
export async function waitReady(
  name: string,
  child: ChildProcess,
  output: () => string,
  readyUrl: string,
): Promise<void> {
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
      throw new Error(`${name} exited (${early}) before it answered:\n${output()}`);
    try {
      const res = await fetch(readyUrl);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer ${readyUrl} within 30 s:\n${output()}`);
    }
  }
}

/**
 * The bundled service with its defaults (WAL, synchronous=FULL, group commit) and the test
 * environment: trial licence, admin and ingest tokens, syslog off, a machine-id file.
 */
export async function startService(
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
  await waitReady('the service', child, output, `${url}/health`);
  return { url, pid: child.pid, output, stop: stopper(child, 'the service') };
}

/**
 * User + system CPU seconds a process has used so far (Linux /proc; NaN elsewhere or once
 * it is gone). Clock ticks of 1/100 s, the value of USER_HZ on Linux.
 */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** One HTTP target: POSTs of a JSON body to one URL. */
export interface Target {
  /** For messages: "POST /v1/events". */
  readonly what: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The same body for every request, or a function called once per request sent (through
   * autocannon's setupRequest) for a body that differs from request to request.
   */
  readonly body: string | (() => string);
  /** The serving process, whose CPU time in the measured phases is tallied. */
  readonly pid?: number | undefined;
}

export interface Load {
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

export async function load(
  ctx: BenchContext,
  target: Target,
  phase: { durationS: number } | { amount: number },
): Promise<Load> {
  const started = performance.now();
  let last = started;
  const lateFrom = 'durationS' in phase ? started + (phase.durationS / 2) * 1000 : Infinity;
  let late = 0;
  const latencies: number[] = [];
  const { body } = target;
  const payload: Partial<autocannon.Options> =
    typeof body === 'string'
      ? { body }
      : {
          requests: [
            {
              method: 'POST',
              path: new URL(target.url).pathname,
              setupRequest: (req) => ({ ...req, body: body() }),
            },
          ],
        };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: 'POST',
        connections: ctx.connections,
        pipelining: 1,
        headers: { ...target.headers },
        ...payload,
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
export function mustBeClean(what: string, l: Load): void {
  const r = l.result;
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0 || r['2xx'] === 0) {
    const codes = JSON.stringify(r.statusCodeStats ?? {});
    throw new Error(
      `${what}: ${String(r.non2xx)} non-2xx answers (status codes ${codes}), ${String(r.errors)} errors, ` +
        `${String(r.timeouts)} timeouts, ${String(r['2xx'])} 2xx`,
    );
  }
}

/** A timed warm-up that must be clean. */
export async function warmUp(ctx: BenchContext, target: Target, durationS: number): Promise<Load> {
  const l = await load(ctx, target, { durationS });
  mustBeClean(`${target.what} warm-up`, l);
  return l;
}

/** One target's measured phases added up. */
export class Tally {
  answers = 0;
  non2xx = 0;
  elapsedS = 0;
  /** CPU seconds the serving process used in the phases (NaN when not known). */
  cpuS = 0;
  /** CPU seconds the load generator (autocannon, this process) used in the phases. */
  clientCpuS = 0;
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
  /** The serving process's CPU time per 2xx answer, ms. */
  get cpuMsPerAnswer(): number {
    return this.answers > 0 ? (this.cpuS * 1000) / this.answers : NaN;
  }
  percentile(p: number): number {
    return percentile(this.lat, p);
  }
}

/** The value at floor(p% of n) of the sorted values; NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = Float64Array.from(xs).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * Measured phases alternate between the targets (A B B A A B B A for two), so that a change
 * in the machine's load during the run (it may be shared) weighs on all alike. Each phase is
 * a fixed number of requests sized from the target's last known rate (its warm-up's second
 * half, then its previous phase) to last durationS / rounds, so no request is left in
 * flight when a phase ends. Any non-2xx, error or timeout fails the run.
 */
export async function alternate(
  ctx: BenchContext,
  targets: readonly { readonly target: Target; readonly warm: Load }[],
  rounds: number,
): Promise<Tally[]> {
  const state = targets.map(({ target, warm }) => ({
    target,
    rps: warm.steadyRps,
    tally: new Tally(),
  }));
  for (let round = 0; round < rounds; round++) {
    for (const t of round % 2 === 0 ? state : [...state].reverse()) {
      const amount = Math.max(ctx.connections * 50, Math.round((t.rps * ctx.durationS) / rounds));
      const cpu0 = cpuSeconds(t.target.pid);
      const client0 = process.cpuUsage();
      const l = await load(ctx, t.target, { amount });
      t.tally.cpuS += cpuSeconds(t.target.pid) - cpu0;
      const client = process.cpuUsage(client0);
      t.tally.clientCpuS += (client.user + client.system) / 1e6;
      mustBeClean(t.target.what, l);
      t.tally.add(l);
      t.rps = l.rps;
    }
  }
  return state.map((s) => s.tally);
}

export interface VerifyBody {
  ok: boolean;
  checked: number;
  head: { seq: number };
  segments: number;
  failure: unknown;
  events_per_s: number;
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (!res.ok) throw new Error(`GET ${url}: ${String(res.status)} ${await res.text()}`);
  return (await res.json()) as T;
}

/** GET /v1/ledger/verify, which must be ok. */
export async function verified(url: string, when: string): Promise<VerifyBody> {
  const report = await getJson<VerifyBody>(`${url}/v1/ledger/verify`);
  if (!report.ok)
    throw new Error(`GET /v1/ledger/verify ${when} is not ok: ${JSON.stringify(report.failure)}`);
  return report;
}

/** One GET with the admin token, timed from the request to the last byte of the answer. */
export async function timedGet(url: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await res.text();
  const took = performance.now() - t0;
  if (!res.ok) throw new Error(`GET ${url}: ${String(res.status)} ${text.slice(0, 500)}`);
  return { ms: took, text };
}

/** One alert as Prometheus hands it to Alertmanager. */
export interface PromAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly startsAt: string;
  readonly generatorURL: string;
}

/** The pairs every record holds with the same value (Alertmanager's common labels). */
function common(records: readonly Readonly<Record<string, string>>[]): Record<string, string> {
  const [head, ...rest] = records;
  return Object.fromEntries(
    Object.entries(head ?? {}).filter(([k, v]) => rest.every((r) => r[k] === v)),
  );
}

/**
 * What Alertmanager (0.25, webhook version 4) posts to a receiver: one group's firing
 * alerts, each with its fingerprint, and the labels and annotations they all share.
 */
export function webhookBody(
  group: { readonly groupKey: string; readonly groupLabels: Readonly<Record<string, string>> },
  alerts: readonly (PromAlert & { readonly fingerprint: string })[],
): string {
  return JSON.stringify({
    version: '4',
    groupKey: group.groupKey,
    truncatedAlerts: 0,
    status: 'firing',
    receiver: 'svc',
    groupLabels: group.groupLabels,
    commonLabels: common(alerts.map((a) => a.labels)),
    commonAnnotations: common(alerts.map((a) => a.annotations)),
    externalURL: 'http://alertmanager.bench:9093',
    alerts: alerts.map(({ fingerprint, ...alert }) => ({
      status: 'firing',
      ...alert,
      endsAt: '0001-01-01T00:00:00Z',
      fingerprint,
    })),
  });
}

export interface LedgerPage {
  events: { seq: number; type: string; trace_id: string | null; data: Record<string, unknown> }[];
  more: boolean;
  counts: Record<string, number>;
}

/**
 * Accounts for every event after `before` up to `after`'s head (two verify reports, the
 * service quiet in between): exactly `fired` signal.fired, no signal.resolved, one ledger.*
 * per segment sealed meanwhile. `counts` of GET /v1/ledger covers every event after a seq
 * per category (the type filter aside), so with the head it accounts for all of them; the
 * fired'th signal.fired after `before` must be the last. Returns the other categories as
 * "n episode.* (x per signal)" for the log.
 */
export async function accountFired(
  url: string,
  before: VerifyBody,
  after: VerifyBody,
  fired: number,
): Promise<string[]> {
  const seals = after.segments - before.segments;
  const page = await getJson<LedgerPage>(
    `${url}/v1/ledger?type=signal.fired&after_seq=${String(before.head.seq)}&order=asc` +
      `&limit=1&offset=${String(fired - 1)}`,
  );
  const written = Object.values(page.counts).reduce((a, b) => a + b, 0);
  if (
    page.events.length !== 1 ||
    page.more ||
    page.counts['signal'] !== fired ||
    (page.counts['ledger'] ?? 0) !== seals ||
    after.head.seq !== before.head.seq + written
  ) {
    throw new Error(
      `expected exactly ${String(fired)} signal.fired events (one per alert answered 2xx), no signal.resolved ` +
        `and ${String(seals)} seal events after seq ${String(before.head.seq)}; the ledger has ${JSON.stringify(page.counts)} ` +
        `up to head seq ${String(after.head.seq)} (signal.fired #${String(fired)}: ` +
        `${JSON.stringify(page.events.map(({ seq, type }) => ({ seq, type })))}, more: ${String(page.more)})`,
    );
  }
  return Object.entries(page.counts)
    .filter(([c]) => c !== 'signal' && c !== 'ledger')
    .map(([c, n]) => `${String(n)} ${c}.* (${(n / fired).toFixed(2)} per signal)`);
}

/** The writer's group-commit histograms from GET /metrics (Prometheus text). */
export interface WriterStats {
  readonly commits: number;
  readonly writes: number;
  readonly commitSeconds: number;
  readonly buckets: ReadonlyMap<string, number>;
}

export async function writerStats(url: string): Promise<WriterStats> {
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
export function distribution(a: WriterStats, b: WriterStats): string {
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

/** The writer's group commits between two snapshots, over `elapsedS` measured seconds. */
export function groupCommit(
  a: WriterStats,
  b: WriterStats,
  elapsedS: number,
): { commits: number; writes: number; batchMean: number; commitMs: number; perS: number } {
  const commits = b.commits - a.commits;
  const writes = b.writes - a.writes;
  const commitMs = ((b.commitSeconds - a.commitSeconds) / commits) * 1000;
  return { commits, writes, batchMean: writes / commits, commitMs, perS: commits / elapsedS };
}

export const ms = (n: number): string => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

export function tallyLine(name: string, t: Tally, rounds: number, unit = 'req/s'): string {
  return (
    `${name}: ${t.rps.toFixed(0)} ${unit} (${String(t.answers)} answers in ${t.elapsedS.toFixed(1)} s, ${String(rounds)} phases), ` +
    `p50 ${ms(t.percentile(50))}, p99 ${ms(t.percentile(99))}` +
    (Number.isFinite(t.cpuS)
      ? `; the server used ${t.cpuS.toFixed(2)} CPU s, ${t.cpuMsPerAnswer.toFixed(3)} ms per answer, ` +
        `${((t.cpuS / t.elapsedS) * 100).toFixed(0)}% of a core`
      : '') +
    `; autocannon ${((t.clientCpuS / t.elapsedS) * 100).toFixed(0)}% of a core`
  );
}
