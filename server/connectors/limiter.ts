// A small promise semaphore: at most `max` calls run at once, the rest wait in FIFO order,
// and when `queueLimit` calls already wait, a new call fails at once instead of piling up.

/** The queue of a limiter is full: the call was not started. */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
}

export interface Limiter {
  /** Run `fn` when a slot is free; the slot is freed when its promise settles. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Calls running now. */
  active(): number;
  /** Calls waiting for a slot. */
  queued(): number;
  /** Resolves when nothing runs and nothing waits. */
  idle(): Promise<void>;
}

export const DEFAULT_QUEUE_LIMIT = 1000;

export function createLimiter(max: number, queueLimit = DEFAULT_QUEUE_LIMIT): Limiter {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`limiter size ${String(max)}`);
  let running = 0;
  const waiting: (() => void)[] = [];
  let idleWaiters: (() => void)[] = [];

  const release = (): void => {
    const next = waiting.shift();
    if (next !== undefined) {
      next(); // the slot passes straight to the next caller: running stays the same
      return;
    }
    running -= 1;
    if (running === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };

  const acquire = (): Promise<void> => {
    if (running < max) {
      running += 1;
      return Promise.resolve();
    }
    if (waiting.length >= queueLimit) {
      return Promise.reject(
        new QueueFullError(
          `${String(queueLimit)} calls are already waiting (${String(max)} in flight); try again later`,
        ),
      );
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };

  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await fn();
      } finally {
        release();
      }
    },
    active: () => running,
    queued: () => waiting.length,
    idle: () =>
      running === 0 && waiting.length === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => idleWaiters.push(resolve)),
  };
}
