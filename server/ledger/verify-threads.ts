// Runs verify spans on worker threads, so a large ledger verifies on every core.
import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SpanJob } from './verify-worker.js';
import type { Span, SpanResult, SpanRunner } from './verify.js';

/**
 * The worker: the bundle beside this file in dist/, or in development (tests, tsx) the
 * TypeScript source, loaded through tsx's loader registered inside the worker.
 */
function workerScript(): { source: URL | string; eval: boolean } | null {
  const here = import.meta.url;
  const bundled = new URL('./verify-worker.mjs', here);
  if (!here.endsWith('.ts') && existsSync(fileURLToPath(bundled)))
    return { source: bundled, eval: false };
  const source = new URL('./verify-worker.ts', here);
  if (!here.endsWith('.ts') || !existsSync(fileURLToPath(source))) return null;
  return {
    source: `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`,
    eval: true,
  };
}

export function createThreadRunner(
  file: string,
  keyName: string,
  keyFor: (algorithm: string) => KeyObject | null,
): SpanRunner | undefined {
  const script = workerScript();
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
