// Runs verify spans on worker threads, so a large ledger verifies on every core.
import type { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../db/worker-script.js';
import type { SpanJob } from './verify-worker.js';
import type { Span, SpanResult, SpanRunner } from './verify.js';

export function createThreadRunner(
  file: string,
  keyName: string,
  keyFor: (algorithm: string) => KeyObject | null,
): SpanRunner | undefined {
  const script = workerScript(import.meta.url, 'verify-worker');
  if (script === null) return undefined;
  const keys: Record<string, Uint8Array> = {};
  for (const alg of ['ed25519', 'ecdsa-p256']) {
    const key = keyFor(alg);
    if (key !== null) keys[alg] = key.export({ format: 'der', type: 'spki' });
  }
  return (span: Span) =>
    new Promise<SpanResult>((resolve, reject) => {
      const job: SpanJob = { file, span, keyName, keys };
      const worker = new Worker(script.source, { workerData: job, eval: script.eval });
      worker.once('message', (result: SpanResult) => {
        resolve(result);
      });
      worker.once('error', reject);
      worker.once('exit', (code) => {
        if (code !== 0) reject(new Error(`verify worker exited with ${String(code)}`));
      });
    });
}
