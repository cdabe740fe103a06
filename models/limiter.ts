// A FIFO concurrency limiter: at most `limit` model calls in flight per endpoint
// (SVC_MODEL_CONCURRENCY / SVC_S1_CONCURRENCY). A waiter whose signal aborts leaves the queue,
// so a timeout also covers time spent waiting for a slot.

export interface Limiter {
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Calls running now (for tests and status). */
  active(): number;
}

export function createLimiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('concurrency must be >= 1');
  let running = 0;
  const waiting: Array<() => void> = [];

  function release(): void {
    running -= 1;
    const next = waiting.shift();
    if (next) next();
  }

  function acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (running < limit) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        running += 1;
        resolve();
      };
      const onAbort = (): void => {
        const i = waiting.indexOf(grant);
        if (i >= 0) waiting.splice(i, 1);
        reject(signal?.reason as Error);
      };
      waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    async run(fn, signal) {
      await acquire(signal);
      try {
        return await fn();
      } finally {
        release();
      }
    },
    active: () => running,
  };
}
