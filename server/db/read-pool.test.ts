// The read pool with a stub worker: answers, the service's own errors passed through, and
// every failure (a job that throws, a worker that exits, a job past the limit, a full
// queue, a worker that cannot start, closing with reads in flight) ends the job with a 503
// and, where a worker is at fault, replaces it.
import { afterEach, describe, expect, it } from 'vitest';
import type { StubAnswer, StubJob } from '../testing/db/read-pool-worker.js';
import { InvalidInputError, StorageUnavailableError } from '../shared/errors.js';
import { createReadPool, type ReadPool } from './read-pool.js';
import { workerScript } from './worker-script.js';

const script = workerScript(import.meta.url, '../testing/db/read-pool-worker');
let pools: ReadPool<StubJob, StubAnswer>[] = [];

function pool(
  options: { size?: number; timeoutMs?: number; maxQueue?: number; failStart?: boolean } = {},
) {
  if (script === null) throw new Error('the stub worker is missing');
  const problems: string[] = [];
  const p = createReadPool<StubJob, StubAnswer>({
    script,
    size: options.size ?? 1,
    workerData: { failStart: options.failStart ?? false },
    timeoutMs: options.timeoutMs ?? 20_000,
    maxQueue: options.maxQueue ?? 16,
    onProblem: (what) => problems.push(what),
  });
  pools.push(p);
  return { p, problems };
}

async function refusal(promise: Promise<unknown>): Promise<StorageUnavailableError> {
  const err: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StorageUnavailableError);
  return err as StorageUnavailableError;
}

afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

describe('read pool', () => {
  it('answers jobs on its workers, two at once with two workers', async () => {
    const { p } = pool({ size: 2 });
    // Until both workers are up (they start with the first job, at their own pace).
    const seen = new Set<number>();
    for (let i = 0; i < 100 && seen.size < 2; i++) {
      const up = await Promise.all([p.run({ do: 'spin', ms: 50 }), p.run({ do: 'spin', ms: 50 })]);
      for (const a of up) seen.add(a.thread);
    }
    const answers = await Promise.all([
      p.run({ do: 'spin', ms: 300 }),
      p.run({ do: 'spin', ms: 300 }),
      p.run({ do: 'echo', value: 7 }),
    ]);
    expect(answers.map((a) => a.value)).toEqual([300, 300, 7]);
    expect(new Set(answers.slice(0, 2).map((a) => a.thread)).size).toBe(2);
    expect(p.size()).toBe(2);
  });

  it("passes the service's own error through as itself, and keeps the worker", async () => {
    const { p, problems } = pool();
    const first = await p.run({ do: 'echo', value: 1 });
    const err: unknown = await p.run({ do: 'invalid' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err).toMatchObject({ code: 'invalid_input', details: { field: 'query' } });
    expect((await p.run({ do: 'echo', value: 2 })).thread).toBe(first.thread);
    expect(problems).toEqual([]);
  });

  it('a job that throws is a 503 and its worker is replaced', async () => {
    const { p, problems } = pool();
    const first = await p.run({ do: 'echo', value: 1 });
    const err = await refusal(p.run({ do: 'throw' }));
    expect(err.code).toBe('reads_failed');
    expect(err.message).toMatch(/index out of step/);
    const next = await p.run({ do: 'echo', value: 2 });
    expect(next.value).toBe(2);
    expect(next.thread).not.toBe(first.thread);
    expect(problems).toEqual([expect.stringMatching(/failed: index out of step/)]);
  });

  it('a worker that exits mid-job: the job is a 503, and the next runs on a new worker', async () => {
    const { p } = pool();
    const first = await p.run({ do: 'echo', value: 1 });
    const dying = refusal(p.run({ do: 'exit' }));
    const waiting = p.run({ do: 'echo', value: 3 });
    expect((await dying).code).toBe('reads_failed');
    const queued = await waiting;
    expect(queued.value).toBe(3);
    expect(queued.thread).not.toBe(first.thread);
  });

  it('a job past the limit is a 503 at the limit, and its stuck worker is replaced', async () => {
    const { p, problems } = pool({ timeoutMs: 1500 });
    const first = await p.run({ do: 'echo', value: 1 });
    const t0 = Date.now();
    const err = await refusal(p.run({ do: 'spin', ms: 60_000 }));
    expect(err.code).toBe('reads_timeout');
    expect(Date.now() - t0).toBeLessThan(5000);
    const next = await p.run({ do: 'echo', value: 2 });
    expect(next.thread).not.toBe(first.thread);
    expect(problems).toContain('read worker ran past the limit');
  });

  it('a job waiting behind a slow one times out in the queue', async () => {
    const { p } = pool({ timeoutMs: 1500 });
    await p.run({ do: 'echo', value: 1 });
    const slow = refusal(p.run({ do: 'spin', ms: 60_000 }));
    const err = await refusal(p.run({ do: 'echo', value: 2 }));
    expect(err.code).toBe('reads_timeout');
    expect(err.message).toMatch(/waiting for a worker/);
    await slow;
  });

  it('refuses a job at once when the queue is full', async () => {
    const { p } = pool({ maxQueue: 2 });
    await p.run({ do: 'echo', value: 1 });
    const running = p.run({ do: 'spin', ms: 500 });
    const queued = [p.run({ do: 'echo', value: 2 }), p.run({ do: 'echo', value: 3 })];
    const err = await refusal(p.run({ do: 'echo', value: 4 }));
    expect(err.code).toBe('reads_busy');
    await running;
    expect((await Promise.all(queued)).map((a) => a.value)).toEqual([2, 3]);
  });

  it('a worker that cannot start never leaves a job hanging', async () => {
    const { p, problems } = pool({ failStart: true, timeoutMs: 2000 });
    const err = await refusal(p.run({ do: 'echo', value: 1 }));
    expect(err.code).toBe('reads_timeout');
    expect(problems.length).toBeGreaterThan(0);
  });

  it('close fails the running and the waiting jobs at once, and refuses later ones', async () => {
    const { p } = pool();
    await p.run({ do: 'echo', value: 1 });
    const running = refusal(p.run({ do: 'spin', ms: 60_000 }));
    const waiting = refusal(p.run({ do: 'echo', value: 2 }));
    const t0 = Date.now();
    await p.close();
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await running).code).toBe('reads_closed');
    expect((await waiting).code).toBe('reads_closed');
    expect((await refusal(p.run({ do: 'echo', value: 3 }))).code).toBe('reads_closed');
    expect(p.size()).toBe(0);
  });
});
