// Starts and keeps the checkpoint thread (checkpoint-worker.ts) for the write connection,
// which never checkpoints itself (open.ts, syncedByWriter). The writer nudges it after its
// commits, at most every NUDGE_EVERY_MS; a thread that died is started again at the next
// nudge, so the WAL cannot grow for want of one.
import { Worker } from 'node:worker_threads';
import type { CheckpointJob, CheckpointResult } from './checkpoint-worker.js';
import { workerScript } from './worker-script.js';

export const NUDGE_EVERY_MS = 50;
/** A WAL longer than this (about 16 MiB of 4 KiB pages) is started over by the thread. */
export const RESTART_FRAMES = 4096;
/** After a thread died, wait this long before starting another (a thread that cannot start
 * must not spin). */
export const RESTART_AFTER_MS = 1000;

export interface Checkpointer {
  /** The writer committed: copy the WAL back when the last run is older than NUDGE_EVERY_MS. */
  nudge(): void;
  /** Hear each checkpoint's result (tests, metrics). */
  onResult(listener: (result: CheckpointResult) => void): void;
  /** Stop the thread and close its connection. */
  close(): Promise<void>;
}

export function createCheckpointer(
  file: string,
  log: { error(obj: object, msg: string): void },
  options: {
    /** Hear each thread started (tests stop one to see it replaced). */
    readonly onThread?: (thread: Worker) => void;
    /** Tests pass a small one; the service uses RESTART_FRAMES. */
    readonly restartFrames?: number;
  } = {},
): Checkpointer | null {
  const script = workerScript(import.meta.url, 'checkpoint-worker');
  if (script === null) return null;
  const found = script;
  const listeners: ((result: CheckpointResult) => void)[] = [];
  let worker: Worker | null = null;
  let lastNudge = 0;
  // A nudge inside the window is not dropped but moved to its end: the last commits of a
  // burst are copied back once it is over, when the writer can start the WAL over.
  let trailing: NodeJS.Timeout | null = null;
  let diedAt = -Infinity;
  let closed = false;

  function start(): Worker {
    const job: CheckpointJob = { file, restartFrames: options.restartFrames ?? RESTART_FRAMES };
    const w = new Worker(found.source, { workerData: job, eval: found.eval });
    w.unref(); // a checkpoint thread never keeps the process alive
    w.on('message', (result: CheckpointResult) => {
      for (const l of listeners) l(result);
    });
    w.on('error', (err) => {
      log.error({ err }, 'the checkpoint thread failed; it is started again at the next commit');
    });
    w.on('exit', () => {
      if (worker === w) {
        worker = null;
        if (!closed) diedAt = performance.now();
      }
    });
    return w;
  }

  function nudge(): void {
    const now = performance.now();
    if (closed) return;
    if (now - lastNudge < NUDGE_EVERY_MS) {
      trailing ??= setTimeout(
        () => {
          trailing = null;
          nudge();
        },
        NUDGE_EVERY_MS - (now - lastNudge),
      );
      trailing.unref();
      return;
    }
    if (worker === null) {
      if (now - diedAt < RESTART_AFTER_MS) return;
      worker = start();
      options.onThread?.(worker);
    }
    lastNudge = now;
    worker.postMessage('run');
  }

  return {
    nudge,
    onResult(listener) {
      listeners.push(listener);
    },
    async close(): Promise<void> {
      closed = true;
      if (trailing !== null) clearTimeout(trailing);
      trailing = null;
      const w = worker;
      worker = null;
      if (w === null) return;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage('stop');
      // A thread stuck in a long checkpoint is not waited for past a second.
      const timer = setTimeout(() => void w.terminate(), 1000);
      await exited;
      clearTimeout(timer);
    },
  };
}
