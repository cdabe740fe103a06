// One writer with group commit: every job submitted in one event-loop turn runs in one
// SQLite transaction (each job in its own savepoint), and every caller is answered only
// after that transaction committed, so an acknowledged write survives kill -9.
import type { Database } from 'better-sqlite3';
import { StorageUnavailableError } from '../shared/errors.js';

type Job = {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  afterCommit: (() => void)[];
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
};

export interface Writer {
  /** Run `fn` in the next group transaction; resolves after the commit. */
  transact<T>(fn: () => T): Promise<T>;
  /** Run `fn` in a transaction of its own now (start-up, CLI tools). */
  transactNow<T>(fn: () => T): T;
  /** Inside a job: run `cb` once the job's transaction has committed. */
  afterCommit(cb: () => void): void;
  /** Jobs waiting for the next group. */
  depth(): number;
  onBatch(listener: (size: number, ms: number) => void): void;
  /** Hear that some work was rolled back (a failed job, a failed group), to drop caches. */
  onRollback(listener: () => void): void;
  /** Finish the queued work; later calls are refused. */
  close(): Promise<void>;
}

/**
 * The most jobs that may wait for the next group. Past it, a job is refused at once with a
 * 503 (senders retry), rather than waiting behind a queue that grows without end.
 */
export const MAX_WRITER_QUEUE = 10_000;

export interface WriterOptions {
  /** Tests pass a small bound; the service uses MAX_WRITER_QUEUE. */
  readonly maxQueue?: number;
}

const STORAGE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY|LOCKED|CORRUPT|NOTADB|PROTOCOL)/;

/** SQLite errors that mean "cannot store now" become 503s, never 4xx. */
export function asStorageError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && STORAGE_CODES.test(code)) {
    return new StorageUnavailableError(
      'storage_unavailable',
      `the store cannot commit now (${code}); retry later`,
    );
  }
  return err;
}

/** SQLite rolled the group transaction back by itself while a job ran. */
class GroupAborted extends Error {
  constructor(cause: unknown) {
    super('the group transaction was rolled back', { cause });
  }
}

export function createWriter(db: Database, options: WriterOptions = {}): Writer {
  const maxQueue = options.maxQueue ?? MAX_WRITER_QUEUE;
  let queue: Job[] = [];
  let scheduled = false;
  let closed = false;
  let current: Job | null = null;
  let idle: Promise<void> = Promise.resolve();
  let markIdle: (() => void) | null = null;
  const batchListeners: ((size: number, ms: number) => void)[] = [];
  const rollbackListeners: (() => void)[] = [];
  const rolledBack = (): void => {
    for (const l of rollbackListeners) safely(l);
  };

  const runJob = db.transaction((job: Job) => job.fn()); // nested: a savepoint per job

  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    const started = performance.now();
    try {
      db.transaction(() => {
        for (const job of batch) {
          current = job;
          try {
            job.outcome = { ok: true, value: runJob(job) };
          } catch (error) {
            job.afterCommit = [];
            job.outcome = { ok: false, error: asStorageError(error) };
            rolledBack();
            // SQLITE_FULL, IOERR, BUSY and NOMEM may roll the whole transaction back: the
            // jobs before this one are gone, and the next would run (and commit) outside it.
            if (!db.inTransaction) throw new GroupAborted(error);
          } finally {
            current = null;
          }
        }
      })();
    } catch (error) {
      rolledBack();
      const refused = asStorageError(error instanceof GroupAborted ? error.cause : error);
      for (const job of batch) job.reject(job.outcome?.ok === false ? job.outcome.error : refused);
      finishBatch(batch.length, started);
      return;
    }
    for (const job of batch) {
      const outcome = job.outcome;
      if (outcome?.ok === true) {
        for (const cb of job.afterCommit) safely(cb);
        job.resolve(outcome.value);
      } else {
        job.reject(outcome?.error);
      }
    }
    finishBatch(batch.length, started);
  }

  function finishBatch(size: number, started: number): void {
    const ms = performance.now() - started;
    for (const l of batchListeners)
      safely(() => {
        l(size, ms);
      });
    if (queue.length === 0 && markIdle) {
      markIdle();
      markIdle = null;
    }
  }

  return {
    transact<T>(fn: () => T): Promise<T> {
      if (closed)
        return Promise.reject(
          new StorageUnavailableError('storage_closed', 'the service is stopping'),
        );
      if (queue.length >= maxQueue)
        return Promise.reject(
          new StorageUnavailableError(
            'storage_busy',
            `the store has ${String(queue.length)} writes waiting, the most it queues; retry shortly`,
          ),
        );
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, afterCommit: [] });
        if (markIdle === null) idle = new Promise((r) => (markIdle = r));
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    transactNow<T>(fn: () => T): T {
      const job: Job = { fn, resolve: () => undefined, reject: () => undefined, afterCommit: [] };
      current = job;
      let value: T;
      try {
        value = db.transaction(fn)();
      } catch (error) {
        rolledBack();
        throw asStorageError(error);
      } finally {
        current = null;
      }
      for (const cb of job.afterCommit) safely(cb);
      return value;
    },
    afterCommit(cb) {
      if (current === null) throw new Error('afterCommit called outside a writer job');
      current.afterCommit.push(cb);
    },
    depth: () => queue.length,
    onBatch(listener) {
      batchListeners.push(listener);
    },
    onRollback(listener) {
      rollbackListeners.push(listener);
    },
    async close() {
      closed = true;
      if (queue.length > 0) await idle;
    },
  };
}

function safely(cb: () => void): void {
  try {
    cb();
  } catch (err) {
    // A post-commit listener must not undo an acknowledged write; report and go on.
    process.emitWarning(`post-commit listener failed: ${String(err)}`);
  }
}
