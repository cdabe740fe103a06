// A small pool of worker threads for reads, each with its own read-only connection (and
// whatever it caches), so that a heavy read never holds the event loop, and so never delays
// an acknowledgement. One job at a time per worker; the others wait in a bounded queue.
// Every job ends: answered, refused with a 503 (queue full, closing, too slow, worker
// failed), or rejected with the ServiceError the worker threw. A worker that fails, exits or
// runs past the limit is terminated and replaced; a job is never left waiting on it.
// Workers start with the first job.
import { Worker } from 'node:worker_threads';
import type { ServiceError } from '../shared/errors.js';
import { StorageUnavailableError } from '../shared/errors.js';
import { fromWire, type FromWorker, type ToWorker } from './read-worker.js';
import type { WorkerScript } from './worker-script.js';

export interface ReadPoolOptions {
  readonly script: WorkerScript;
  /** Worker threads; each holds its own connection and cache. */
  readonly size: number;
  /** Given to every worker as its workerData (the database file, …). */
  readonly workerData: unknown;
  /** From a job's arrival: past it the job is a 503, and a worker running it is replaced. */
  readonly timeoutMs: number;
  /** Jobs that may wait for a free worker; past it a job is refused at once. */
  readonly maxQueue: number;
  /** Hear a worker that failed or was replaced (for the log). */
  readonly onProblem?: (what: string, err?: unknown) => void;
}

interface Job {
  readonly id: number;
  readonly job: unknown;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  timer: NodeJS.Timeout | null;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  running: Job | null;
  /** Set once the slot was given up: its late messages and exit are ignored. */
  gone: boolean;
}

/** Restarts after failures before ready wait this long, doubling, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;

const unavailable = (code: string, message: string): StorageUnavailableError =>
  new StorageUnavailableError(code, message);

export function createReadPool<J, A>(options: ReadPoolOptions) {
  const { script, size, timeoutMs, maxQueue } = options;
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;
  let started = false;
  let backoff = FIRST_BACKOFF_MS;
  const problem = (what: string, err?: unknown): void => options.onProblem?.(what, err);

  function spawn(): void {
    if (closed) return;
    const worker = new Worker(script.source, {
      eval: script.eval,
      workerData: options.workerData,
    });
    // Never keep the process alive for an idle reader; a request in flight does that.
    worker.unref();
    const slot: Slot = { worker, ready: false, running: null, gone: false };
    slots.push(slot);
    worker.on('message', (msg: FromWorker) => {
      if (slot.gone) return;
      if (msg.type === 'ready') {
        slot.ready = true;
        backoff = FIRST_BACKOFF_MS;
        dispatch();
        return;
      }
      const job = slot.running;
      if (job === null || job.id !== msg.id) return;
      slot.running = null;
      settle(job);
      if (msg.type === 'done') job.resolve(msg.value);
      else {
        const meant = fromWire(msg.error);
        if (meant !== null) job.reject(meant);
        else {
          job.reject(
            unavailable(
              'reads_failed',
              `the read failed on its worker (${msg.error.message}); retry`,
            ),
          );
          replace(slot, `read worker failed: ${msg.error.message}`);
          return;
        }
      }
      dispatch();
    });
    worker.on('error', (err) => {
      if (!slot.gone) replace(slot, 'read worker threw', err);
    });
    worker.on('exit', (code) => {
      if (!slot.gone) replace(slot, `read worker exited with ${String(code)}`);
    });
  }

  /** Give the slot up (failing its job), terminate its worker and start another. */
  function replace(slot: Slot, why: string, err?: unknown): void {
    slot.gone = true;
    slots.splice(slots.indexOf(slot), 1);
    const job = slot.running;
    slot.running = null;
    if (job !== null) {
      settle(job);
      job.reject(unavailable('reads_failed', `the read's worker stopped (${why}); retry`));
    }
    void slot.worker.terminate();
    problem(why, err);
    if (closed) return;
    // A worker that fails before it is ready (a file it cannot open) is not restarted in a
    // tight loop.
    const wait = slot.ready ? 0 : backoff;
    if (!slot.ready) backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    setTimeout(spawn, wait).unref();
  }

  function settle(job: Job): void {
    if (job.timer !== null) clearTimeout(job.timer);
    job.timer = null;
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (!slot.ready || slot.running !== null || slot.gone) continue;
      const job = queue.shift();
      if (job === undefined) return;
      slot.running = job;
      slot.worker.postMessage({ id: job.id, job: job.job } satisfies ToWorker);
    }
  }

  function expire(job: Job): void {
    job.timer = null;
    const waiting = queue.indexOf(job);
    if (waiting >= 0) queue.splice(waiting, 1);
    const slot = slots.find((s) => s.running === job);
    const err = unavailable(
      'reads_timeout',
      `the read took longer than ${String(timeoutMs)} ms${slot === undefined ? ' waiting for a worker' : ''}; retry`,
    );
    if (slot !== undefined) {
      // It is stuck in a long computation: only terminating the thread stops it.
      slot.running = null;
      replace(slot, 'read worker ran past the limit');
    }
    job.reject(err);
    dispatch();
  }

  return {
    /** Run one job on a worker; resolves with its answer. */
    run(job: J): Promise<A> {
      if (closed) return Promise.reject(unavailable('reads_closed', 'the service is stopping'));
      if (queue.length >= maxQueue)
        return Promise.reject(
          unavailable(
            'reads_busy',
            `${String(queue.length)} reads are waiting, the most that may; retry shortly`,
          ),
        );
      return new Promise<A>((resolve, reject) => {
        const entry: Job = {
          id: nextId++,
          job,
          resolve: resolve as (v: unknown) => void,
          reject,
          timer: null,
        };
        entry.timer = setTimeout(() => {
          expire(entry);
        }, timeoutMs);
        queue.push(entry);
        // Started on the first job, not before: a service nobody asks for the list holds
        // no worker (nor its cache).
        if (!started) {
          started = true;
          for (let i = 0; i < size; i++) spawn();
        }
        dispatch();
      });
    },
    /** Workers alive now (started or ready). */
    size: (): number => slots.length,
    /** Refuse new jobs, fail the waiting and running ones, and stop every worker. */
    async close(): Promise<void> {
      closed = true;
      const err = (): ServiceError => unavailable('reads_closed', 'the service is stopping');
      for (const job of queue.splice(0)) {
        settle(job);
        job.reject(err());
      }
      const stopping = slots.splice(0).map((slot) => {
        slot.gone = true;
        if (slot.running !== null) {
          settle(slot.running);
          slot.running.reject(err());
          slot.running = null;
        }
        return slot.worker.terminate();
      });
      await Promise.all(stopping);
    },
  };
}
export type ReadPool<J, A> = ReturnType<typeof createReadPool<J, A>>;
