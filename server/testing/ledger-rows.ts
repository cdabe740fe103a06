// Every ledger row in seq order, read through the ledger's own store, for tests that look
// at what was appended (the ledger table is the ledger domain's; no test SQL names it).
import type { Database } from 'better-sqlite3';
import { createLedgerStore } from '../ledger/index.js';

export function ledgerRows(db: Database) {
  const store = createLedgerStore(db);
  return store.range(0, store.head().seq, Number.MAX_SAFE_INTEGER);
}
