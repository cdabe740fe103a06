// Worker thread: verifies spans of the ledger on its own read-only connection, one message
// at a time, for as long as the pool in verify-threads.ts keeps it.
import { createPublicKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { createLedgerStore } from './ledger.store.js';
import { verifySpan, type Span, type SpanResult } from './verify.js';

export interface VerifyThreadInit {
  readonly file: string;
  readonly keyName: string;
  /** SPKI DER of the public seal keys, by algorithm. */
  readonly keys: Readonly<Record<string, Uint8Array>>;
}

export interface SpanJob {
  readonly span: Span;
}

export type SpanReply = { readonly result: SpanResult } | { readonly error: string };

const init = workerData as VerifyThreadInit;
// Opened once: a database that cannot be opened ends the thread, and the pool runs its span
// on the main thread.
const db = openDatabase(init.file, { readonly: true });
const store = createLedgerStore(db);
const keys = new Map(
  Object.entries(init.keys).map(([alg, der]) => [
    alg,
    createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }),
  ]),
);
const deps = { store, keyName: init.keyName, keyFor: (alg: string) => keys.get(alg) ?? null };
const port = parentPort;

/** A span's result, or the error that stopped it (the main thread then runs the span). */
async function answer(job: SpanJob): Promise<SpanReply> {
  try {
    // The segment list is read per span: spans end at seals made before verify started, and
    // seals are only appended, so it begins with the list the main thread read.
    return { result: await verifySpan(deps, store.segments(), job.span) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

port?.on('message', (job: SpanJob) => {
  void answer(job).then((reply) => {
    port.postMessage(reply);
  });
});
