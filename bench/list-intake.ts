// The episodes-list benchmark's check that list reads leave the event loop free: POST
// /v1/events (one at a time, each a durable commit) timed alone, and timed while READERS
// loops read the heaviest list shape back to back. Phases alternate (alone, read, read,
// alone) so that a change in the machine's load weighs on both. Every 201 must be in the
// ledger afterwards (head seq = before + 201s + seals) and verify must be ok.
import { INGEST_TOKEN } from '../server/testing/test-server.js';
import { ms, percentile, timedGet, verified } from './harness.js';
import type { BenchContext } from './run.js';

/** Events posted in each phase. */
const POSTS = 300;
/** Concurrent list readers in a reading phase. */
const READERS = 2;
const EVENT = JSON.stringify({
  type: 'human.deploy',
  actor: 'ci:bench',
  data: { service: 'pay', version: '1.2.3' },
});

export interface IntakeUnderReads {
  readonly alone: number[];
  readonly reading: number[];
  /** List answers during the reading phases, and their latencies. */
  readonly reads: number[];
}

async function post(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${INGEST_TOKEN}` },
    body: EVENT,
  });
  const text = await res.text();
  const took = performance.now() - t0;
  if (res.status !== 201) throw new Error(`POST /v1/events: ${String(res.status)} ${text}`);
  return took;
}

async function phase(url: string, into: number[]): Promise<void> {
  for (let i = 0; i < POSTS; i++) into.push(await post(url));
}

/** Post events alone and under list reads of `heavy` (a full list URL). */
export async function intakeUnderReads(
  ctx: BenchContext,
  url: string,
  heavy: string,
): Promise<IntakeUnderReads> {
  const before = await verified(url, 'before the intake phases');
  const alone: number[] = [];
  const reading: number[] = [];
  const reads: number[] = [];
  for (const withReads of [false, true, true, false]) {
    if (!withReads) {
      await phase(url, alone);
      continue;
    }
    let stop = false;
    const readers = Array.from({ length: READERS }, async () => {
      while (!stop) reads.push((await timedGet(heavy)).ms);
    });
    // Let the readers get going before the first post.
    await new Promise((r) => setTimeout(r, 200));
    try {
      await phase(url, reading);
    } finally {
      stop = true;
      await Promise.all(readers);
    }
  }
  const after = await verified(url, 'after the intake phases');
  const seals = after.segments - before.segments;
  const expected = before.head.seq + alone.length + reading.length + seals;
  if (after.head.seq !== expected)
    throw new Error(
      `the ledger head is ${String(after.head.seq)} after the intake phases, not ${String(expected)} ` +
        `(${String(before.head.seq)} + ${String(alone.length + reading.length)} answered 201 + ${String(seals)} seals)`,
    );
  const line = (xs: number[]): string =>
    `p50 ${ms(percentile(xs, 50))}, p99 ${ms(percentile(xs, 99))}, max ${ms(Math.max(...xs))} over ${String(xs.length)}`;
  ctx.log(`POST /v1/events one at a time, alone: ${line(alone)}`);
  ctx.log(`POST /v1/events while ${String(READERS)} loops read the list: ${line(reading)}`);
  ctx.log(`  the list meanwhile (${heavy.split('?')[1] ?? ''}): ${line(reads)}`);
  ctx.log(
    `  every 201 is in the ledger: head ${String(after.head.seq)} = ${String(before.head.seq)} + ` +
      `${String(alone.length + reading.length)} + ${String(seals)} seals; verify ok`,
  );
  return { alone, reading, reads };
}
