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
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { INGEST_TOKEN, makeDataDir } from '../server/testing/test-server.js';
import {
  alternate,
  distribution,
  exited,
  getJson,
  groupCommit,
  ROOT,
  startService,
  stopper,
  tail,
  tallyLine,
  warmUp,
  writerStats,
  type Child,
  type Target,
  type VerifyBody,
} from './harness.js';
import type { BenchContext, Benchmark, Figure } from './run.js';

const BARE = fileURLToPath(new URL('./bare-fastify.ts', import.meta.url));
const BODY = JSON.stringify({
  type: 'human.deploy',
  actor: 'ci:bench',
  data: { service: 'pay', version: '1.2.3' },
});
const WARMUP_S = 2;

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
  return {
    url: `http://127.0.0.1:${String(port)}`,
    pid: child.pid,
    output,
    stop: stopper(child, 'bare-fastify'),
  };
}

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
    const url = service.url;
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${INGEST_TOKEN}` };
    const bareTarget: Target = {
      what: 'bare Fastify POST /bare',
      url: `${bare.url}/bare`,
      headers,
      body: BODY,
      pid: bare.pid,
    };
    const events: Target = {
      what: 'POST /v1/events',
      url: `${url}/v1/events`,
      headers,
      body: BODY,
      pid: service.pid,
    };
    const atStart = await getJson<VerifyBody>(`${url}/v1/ledger/verify`);
    const startupEvents = atStart.head.seq;

    const bareWarm = await warmUp(ctx, bareTarget, WARMUP_S);
    const warm = await warmUp(ctx, events, WARMUP_S);
    await new Promise((r) => setTimeout(r, 300)); // requests abandoned when the warm-up stopped, and a seal, settle
    const before = await getJson<VerifyBody>(`${url}/v1/ledger/verify`);
    const beforeStats = await writerStats(url);

    const [bareTally, svcTally] = await alternate(
      ctx,
      [
        { target: bareTarget, warm: bareWarm },
        { target: events, warm },
      ],
      ROUNDS,
    );
    if (bareTally === undefined || svcTally === undefined) throw new Error('no tallies');

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

    const { commits, writes, batchMean, commitMs, perS } = groupCommit(
      beforeStats,
      afterStats,
      svcTally.elapsedS,
    );

    ctx.log(tallyLine('bare Fastify POST /bare', bareTally, ROUNDS));
    ctx.log(tallyLine('service POST /v1/events', svcTally, ROUNDS));
    ctx.log(
      `ledger: ${String(startupEvents)} start-up events + ${String(warmCommitted)} warm-up events ` +
        `(${String(warm.result['2xx'])} answered; the others were in flight when the warm-up stopped) + ` +
        `${String(svcTally.answers)} measured 2xx + ${String(after.segments - atStart.segments)} seal events ` +
        `= head seq ${String(after.head.seq)}; verify ok (${String(after.segments)} segments)`,
    );
    ctx.log(
      `writer group commit (measured phases): ${String(commits)} commits for ${String(writes)} writes, ` +
        `mean batch ${batchMean.toFixed(1)}, mean commit ${commitMs.toFixed(2)} ms (SQL + WAL write + fsync), ` +
        `${perS.toFixed(0)} commits/s, event loop in commits ${((commits * commitMs) / 10 / svcTally.elapsedS).toFixed(0)}% of the time`,
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
        value: perS,
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
