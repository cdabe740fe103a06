// Ledger verify speed: builds a ledger of 200,000 events (plus the seal events of its 200
// segments) in a temporary data folder through the real runtime, seals it, then times the
// service's own verify (chain, sequence, Merkle digests, Ed25519 seals; median of 3). The
// baseline is the raw SQLite read of the same rows with better-sqlite3 on the same
// connection, in the same run. SHA-256 alone over the chain is reported beside it, as
// chainHash computes it (a Hash object per event) and with one-shot crypto.hash, so the
// figures show where verify's time goes (reading, hashing, the rest). The contenders run
// interleaved, round after round, so that a change in the machine's load weighs on all.
// Verify's CPU time per event (all threads of the process) is reported too: on a shared
// machine it moves less with others' load than the wall-clock rate does.
import { createHash, hash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadConfig } from '../server/config.js';
import { canonicalEvent } from '../server/ledger/hash.js';
import type { RawEvent } from '../server/ledger/ledger.types.js';
import { createLogger } from '../server/logger.js';
import { createRuntime } from '../server/compose/index.js';
import type { VerifyReport } from '../server/ledger/verify.js';
import { makeDataDir, testEnv } from '../server/testing/test-server.js';
import type { BenchContext, Benchmark, Figure } from './run.js';

const EVENTS = 200_000;
const BATCH = 10_000;
const RUNS = 3;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** Times each contender once per round, round after round (A B C A B C …), so that a
 * change in the machine's load weighs on all alike; the median per contender, seconds. */
async function interleaved(
  contenders: readonly (() => unknown)[],
): Promise<{ wall: number[][]; cpu: number[][] }> {
  const wall: number[][] = contenders.map(() => []);
  const cpu: number[][] = contenders.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    for (const [i, fn] of contenders.entries()) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await fn();
      wall[i]?.push((performance.now() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpu[i]?.push((c.user + c.system) / 1e6);
    }
  }
  return { wall, cpu };
}

const secs = (xs: readonly number[]): string =>
  xs.map((x) => `${(x * 1000).toFixed(0)}`).join(' / ') + ' ms';

async function run(ctx: BenchContext): Promise<readonly Figure[]> {
  const { dir, machineIdFile } = makeDataDir();
  const config = loadConfig(testEnv(dir, machineIdFile, { SVC_INSTANCE: 'bench' }));
  const rt = createRuntime(config, { log: createLogger('silent') });
  try {
    // Build: big group-commit batches through the real ledger service (chain hash,
    // projections, synchronous=FULL commits), then seal every full segment.
    const t0 = performance.now();
    for (let done = 0; done < EVENTS; done += BATCH) {
      await rt.writer.transact(() => {
        for (let i = done; i < done + BATCH; i++) {
          rt.ledger.append({
            type: 'human.deploy',
            actor: 'ci:bench',
            data: { service: 'pay', version: `1.2.${String(i)}` },
            trace_id: i % 10 === 0 ? `trace-${String(i)}` : null,
          });
        }
      });
    }
    const appendS = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const sealed = rt.sealer?.sealNow() ?? 0;
    const sealS = (performance.now() - t1) / 1000;
    const head = rt.ledgerStore.head().seq;
    ctx.log(
      `built ${String(EVENTS)} events in ${appendS.toFixed(1)} s (${(EVENTS / appendS).toFixed(0)} appends/s in ${String(EVENTS / BATCH)} commits); ` +
        `sealed ${String(sealed)} segments in ${sealS.toFixed(1)} s; head seq ${String(head)}`,
    );
    if (rt.sealer === null || sealed !== Math.floor(head / 1000))
      throw new Error(
        `expected ${String(Math.floor(head / 1000))} sealed segments, got ${String(sealed)}`,
      );

    // Baseline: the same rows, read raw on the same connection. The canonical texts for
    // the SHA-256-only figure are prepared beforehand; one untimed read warms the page cache.
    const raw = rt.db.prepare<[], RawEvent & { hash: Buffer }>(
      'SELECT seq, ts, type, actor, data, reason, trace_id, hash FROM ledger ORDER BY seq',
    );
    const texts = raw.all().map((r) => canonicalEvent(r));
    let rawRows = 0;
    const reports: VerifyReport[] = [];
    const { wall, cpu } = await interleaved([
      () => {
        rawRows = 0;
        for (const row of raw.iterate()) if (row.hash.length === 32) rawRows++;
      },
      async () => {
        reports.push(await rt.reader.verify({ fresh: true }));
      },
      () => {
        // As chainHash does it: a Hash object per event.
        let prev: Buffer = Buffer.alloc(32);
        for (const t of texts) prev = createHash('sha256').update(prev).update(t).digest();
      },
      () => {
        // The same chain with one-shot crypto.hash over a reused buffer (prev ‖ text).
        const scratch = Buffer.alloc(64 * 1024);
        let prev: Buffer = Buffer.alloc(32);
        for (const t of texts) {
          prev.copy(scratch, 0);
          const n = scratch.write(t, 32);
          prev = hash('sha256', scratch.subarray(0, 32 + n), 'buffer');
        }
      },
    ]);
    const [rawTimes = [], verifyTimes = [], shaTimes = [], oneShotTimes = []] = wall;
    const [rawCpu = [], verifyCpu = []] = cpu;
    if (rawRows !== head)
      throw new Error(`the raw read saw ${String(rawRows)} rows, the head is ${String(head)}`);
    for (const r of reports) {
      if (!r.ok || r.checked !== head || r.segments !== sealed) {
        throw new Error(
          `verify is not ok: ${JSON.stringify({ ok: r.ok, checked: r.checked, segments: r.segments, failure: r.failure })}`,
        );
      }
    }
    const rawPerS = head / median(rawTimes);
    const verifyPerS = head / median(verifyTimes);
    const shaPerS = head / median(shaTimes);
    const oneShotPerS = head / median(oneShotTimes);
    const verifyCpuUs = (median(verifyCpu) / head) * 1e6;
    const rawCpuUs = (median(rawCpu) / head) * 1e6;

    ctx.log(`raw SQLite read: ${secs(rawTimes)} → ${rawPerS.toFixed(0)} rows/s (median)`);
    ctx.log(
      `verify (chain, sequence, ${String(sealed)} digests and seals): ${secs(verifyTimes)} → ${verifyPerS.toFixed(0)} events/s (median)`,
    );
    ctx.log(
      `verify CPU (all threads): ${secs(verifyCpu)} → ${verifyCpuUs.toFixed(2)} µs an event; raw read ${rawCpuUs.toFixed(2)} µs a row (medians)`,
    );
    ctx.log(
      `SHA-256 chain alone, createHash per event: ${secs(shaTimes)} → ${shaPerS.toFixed(0)} events/s (median)`,
    );
    ctx.log(
      `SHA-256 chain alone, one-shot crypto.hash: ${secs(oneShotTimes)} → ${oneShotPerS.toFixed(0)} events/s (median)`,
    );

    return [
      {
        name: 'ledger_verify.events_per_s',
        value: verifyPerS,
        unit: 'events/s',
        baseline: rawPerS,
        aim: { on: 'value', atLeast: 400_000 },
      },
      {
        name: 'ledger_verify.cpu_us_per_event',
        value: verifyCpuUs,
        unit: 'µs',
        baseline: rawCpuUs,
      },
      {
        name: 'ledger_verify.raw_sqlite_rows_per_s',
        value: rawPerS,
        unit: 'rows/s',
        baseline: null,
      },
      {
        name: 'ledger_verify.sha256_chain_per_s',
        value: shaPerS,
        unit: 'events/s',
        baseline: null,
      },
      {
        name: 'ledger_verify.sha256_oneshot_chain_per_s',
        value: oneShotPerS,
        unit: 'events/s',
        baseline: shaPerS,
      },
      {
        name: 'ledger_verify.append_per_s',
        value: EVENTS / appendS,
        unit: 'events/s',
        baseline: null,
      },
    ];
  } finally {
    rt.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: 'ledger-verify',
  title: `verify a ledger of ${EVENTS.toLocaleString('en-GB')} events, against a raw SQLite read`,
  run,
};
export default bench;
