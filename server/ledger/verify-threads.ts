// Runs verify spans on a small pool of worker threads, so a large ledger verifies on every
// core. The threads start on the first span and are kept between verifies (a thread loading
// its code costs more than a span), and end after a while idle or on close.
import type { KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../db/worker-script.js';
import type { SpanJob, SpanReply, VerifyThreadInit } from './verify-worker.js';
import type { Span, SpanResult, SpanRunner } from './verify.js';

/** How long an idle thread is kept for the next verify. */
const IDLE_MS = 30_000;

/** One thread per core beside the main thread, which verifies spans too; at most 3. */
export function defaultVerifyThreads(): number {
  return Math.max(1, Math.min(availableParallelism() - 1, 3));
}

interface Job {
  readonly span: Span;
  readonly resolve: (result: SpanResult) => void;
  readonly reject: (err: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  job: Job | null;
  idle: NodeJS.Timeout | null;
}

export function createThreadRunner(
  file: string,
  keyName: string,
  keyFor: (algorithm: string) => KeyObject | null,
  threads: number = defaultVerifyThreads(),
): SpanRunner | undefined {
  const script = workerScript(import.meta.url, 'verify-worker');
  if (script === null) return undefined;
  const { source, eval: isSource } = script;
  const keys: Record<string, Uint8Array> = {};
  for (const alg of ['ed25519', 'ecdsa-p256']) {
    const key = keyFor(alg);
    if (key !== null) keys[alg] = key.export({ format: 'der', type: 'spki' });
  }
  const init: VerifyThreadInit = { file, keyName, keys };
  const live = new Set<Thread>();
  const free: Thread[] = [];
  const waiting: Job[] = [];

  function start(): Thread {
    const worker = new Worker(source, { workerData: init, eval: isSource });
    const thread: Thread = { worker, job: null, idle: null };
    live.add(thread);
    worker.on('message', (reply: SpanReply) => {
      const job = thread.job;
      thread.job = null;
      if ('result' in reply) job?.resolve(reply.result);
      else job?.reject(new Error(`verify worker: ${reply.error}`));
      if (live.has(thread)) next(thread);
    });
    worker.on('error', (err) => {
      lost(thread, err);
    });
    worker.on('exit', (code) => {
      lost(thread, new Error(`verify worker exited with ${String(code)}`));
    });
    return thread;
  }

  /** A thread that failed or ended: its span fails (the caller runs it), a waiting one gets a new thread. */
  function lost(thread: Thread, err: Error): void {
    if (thread.idle !== null) clearTimeout(thread.idle);
    const at = free.indexOf(thread);
    if (at !== -1) free.splice(at, 1);
    thread.job?.reject(err);
    thread.job = null;
    if (!live.delete(thread)) return;
    const job = waiting.shift();
    if (job !== undefined) assign(start(), job);
  }

  function assign(thread: Thread, job: Job): void {
    if (thread.idle !== null) clearTimeout(thread.idle);
    thread.idle = null;
    thread.job = job;
    thread.worker.ref(); // a span in flight keeps the process alive; an idle thread does not
    const message: SpanJob = { span: job.span };
    thread.worker.postMessage(message);
  }

  function next(thread: Thread): void {
    const job = waiting.shift();
    if (job !== undefined) {
      assign(thread, job);
      return;
    }
    thread.worker.unref();
    free.push(thread);
    thread.idle = setTimeout(() => {
      live.delete(thread);
      const at = free.indexOf(thread);
      if (at !== -1) free.splice(at, 1);
      void thread.worker.terminate();
    }, IDLE_MS);
    thread.idle.unref();
  }

  return {
    threads,
    run: (span) =>
      new Promise<SpanResult>((resolve, reject) => {
        const job: Job = { span, resolve, reject };
        const thread = free.pop() ?? (live.size < threads ? start() : null);
        if (thread === null) waiting.push(job);
        else assign(thread, job);
      }),
    async close() {
      const all = [...live];
      live.clear();
      free.length = 0;
      for (const job of waiting.splice(0)) job.reject(new Error('verify threads closed'));
      await Promise.all(
        all.map((thread) => {
          if (thread.idle !== null) clearTimeout(thread.idle);
          thread.job?.reject(new Error('verify threads closed'));
          thread.job = null;
          return thread.worker.terminate();
        }),
      );
    },
  };
}
