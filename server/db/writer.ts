// One writer with group commit: every job submitted in one event-loop turn runs in one
// SQLite transaction (each job in its own savepoint), and every caller is answered only
// after that transaction committed and, with a durability stage, after the commit is on
// disk, so an acknowledged write survives kill -9 and power loss. The stage (wal-sync.ts)
// flushes the WAL on libuv's thread pool: the event loop runs the next group meanwhile.
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
  /** Hear each group once its jobs are answered (after the sync): its size and commit time. */
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

/** Makes every commit made so far durable (the WAL flushed to disk). */
export interface Durability {
  /** Off the event loop; rejects when the disk refused the flush. */
  sync(): Promise<void>;
  /** On the calling thread (start-up, CLI tools). */
  syncNow(): void;
}

/**
 * The most a group's jobs may hold the event loop: past it the group commits and the jobs
 * left wait for the next turn, so reads answer between the groups of a storm's writes. A
 * group always takes its first job, however long.
 */
export const GROUP_BUDGET_MS = 10;

export interface WriterOptions {
  /** Tests pass a small bound; the service uses MAX_WRITER_QUEUE. */
  readonly maxQueue?: number;
  /** Tests pass their own; the service uses GROUP_BUDGET_MS. */
  readonly groupBudgetMs?: number;
  /**
   * Without it, the connection syncs inside each commit (synchronous=FULL). With it, the
   * connection commits without syncing and nothing is answered until this stage ran.
   */
  readonly durability?: Durability;
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

/** The jobs of one transaction, and how long it took. */
interface Group {
  readonly jobs: readonly Job[];
  readonly ms: number;
}

/** SQLite rolled the group transaction back by itself while a job ran. */
class GroupAborted extends Error {
  constructor(cause: unknown) {
    super('the group transaction was rolled back', { cause });
  }
}

export function createWriter(db: Database, options: WriterOptions = {}): Writer {
  const maxQueue = options.maxQueue ?? MAX_WRITER_QUEUE;
  const budgetMs = options.groupBudgetMs ?? GROUP_BUDGET_MS;
  const durability = options.durability;
  let queue: Job[] = [];
  let scheduled = false;
  let closed = false;
  // Set once a sync failed: what was committed may not be on disk, and later writes would
  // build on it, so the writer refuses everything until the service restarts.
  let inDoubt: StorageUnavailableError | null = null;
  // Committed groups waiting for the sync that covers them, and whether a sync is running.
  let awaitingSync: Group[] = [];
  let syncing = false;
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
    const taken = queue;
    queue = [];
    if (taken.length === 0) return;
    const started = performance.now();
    // The jobs the budget let into this group; the rest go back to the head of the queue.
    let batch = taken;
    try {
      db.transaction(() => {
        for (let i = 0; i < taken.length; i++) {
          if (i > 0 && performance.now() - started > budgetMs) {
            batch = taken.slice(0, i);
            queue = [...taken.slice(i), ...queue];
            break;
          }
          const job = taken[i] as Job;
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
        // IMMEDIATE: the write lock is taken before the first read, so a job that reads then
        // writes never finds its snapshot stale (SQLITE_BUSY_SNAPSHOT) after the checkpoint
        // thread started the WAL over; it waits for that instead.
      }).immediate();
    } catch (error) {
      rolledBack();
      const refused = asStorageError(error instanceof GroupAborted ? error.cause : error);
      for (const job of batch) job.reject(job.outcome?.ok === false ? job.outcome.error : refused);
      announce(batch.length, performance.now() - started);
      scheduleFlush();
      return;
    }
    const group: Group = { jobs: batch, ms: performance.now() - started };
    if (durability === undefined) settle(group);
    else {
      awaitingSync.push(group);
      startSync();
    }
    scheduleFlush();
  }

  /** The next group runs in a later turn, after the I/O that arrived meanwhile. */
  function scheduleFlush(): void {
    if (scheduled || queue.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  }

  /**
   * Answer a committed group's jobs (after their afterCommit callbacks), refuse its failed
   * ones, then tell the batch listeners: they see the committed state.
   */
  function settle(group: Group): void {
    for (const job of group.jobs) {
      const outcome = job.outcome;
      if (outcome?.ok === true) {
        for (const cb of job.afterCommit) safely(cb);
        job.resolve(outcome.value);
      } else {
        job.reject(outcome?.error);
      }
    }
    announce(group.jobs.length, group.ms);
  }

  /** One sync at a time; it covers every commit made before it started. */
  function startSync(): void {
    if (syncing || awaitingSync.length === 0 || durability === undefined) return;
    syncing = true;
    const covered = awaitingSync;
    awaitingSync = [];
    durability.sync().then(
      () => {
        syncing = false;
        for (const group of covered) settle(group);
        startSync();
        maybeIdle();
      },
      (error: unknown) => {
        syncing = false;
        inDoubt = new StorageUnavailableError(
          'storage_unavailable',
          `the disk refused to flush committed writes (${errorCode(error)}); the store takes no more writes until the service restarts`,
        );
        rolledBack();
        for (const group of [...covered, ...awaitingSync]) {
          for (const job of group.jobs) job.reject(inDoubt);
          announce(group.jobs.length, group.ms);
        }
        awaitingSync = [];
        maybeIdle();
      },
    );
  }

  function maybeIdle(): void {
    if (queue.length === 0 && !syncing && awaitingSync.length === 0 && markIdle) {
      markIdle();
      markIdle = null;
    }
  }

  /** `ms`: the group's transaction, from its first job to its commit (the sync not counted). */
  function announce(size: number, ms: number): void {
    for (const l of batchListeners)
      safely(() => {
        l(size, ms);
      });
    maybeIdle();
  }

  return {
    transact<T>(fn: () => T): Promise<T> {
      if (inDoubt !== null) return Promise.reject(inDoubt);
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
        scheduleFlush();
      });
    },
    transactNow<T>(fn: () => T): T {
      if (inDoubt !== null) throw inDoubt;
      const job: Job = { fn, resolve: () => undefined, reject: () => undefined, afterCommit: [] };
      current = job;
      let value: T;
      try {
        value = db.transaction(fn).immediate();
      } catch (error) {
        rolledBack();
        throw asStorageError(error);
      } finally {
        current = null;
      }
      if (durability !== undefined) {
        try {
          durability.syncNow();
        } catch (error) {
          throw new StorageUnavailableError(
            'storage_unavailable',
            `the disk refused to flush the commit (${errorCode(error)})`,
          );
        }
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
      if (queue.length > 0 || syncing || awaitingSync.length > 0) await idle;
    },
  };
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : String(error);
}

function safely(cb: () => void): void {
  try {
    cb();
  } catch (err) {
    // A post-commit listener must not undo an acknowledged write; report and go on.
    process.emitWarning(`post-commit listener failed: ${String(err)}`);
  }
}
