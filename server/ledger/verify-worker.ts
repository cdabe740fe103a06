// Worker thread: verifies one span of the ledger on its own read-only connection.
import { createPublicKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { createLedgerStore } from './ledger.store.js';
import { verifySpan, type Span } from './verify.js';

export interface SpanJob {
  readonly file: string;
  readonly span: Span;
  readonly keyName: string;
  /** SPKI DER of the public seal keys, by algorithm. */
  readonly keys: Readonly<Record<string, Uint8Array>>;
}

const job = workerData as SpanJob;
const db = openDatabase(job.file, { readonly: true });
try {
  const store = createLedgerStore(db);
  const keys = new Map(
    Object.entries(job.keys).map(([alg, der]) => [
      alg,
      createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }),
    ]),
  );
  const result = await verifySpan(
    { store, keyName: job.keyName, keyFor: (alg) => keys.get(alg) ?? null },
    store.segments(),
    job.span,
  );
  parentPort?.postMessage(result);
} finally {
  db.close();
}
