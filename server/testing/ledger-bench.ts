// A migrated SQLite file with a writer, projections and a ledger service over it, as the
// services' tests need before they build the service under test.
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import { loadMigrations, migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { createWriter, type Writer } from '../db/writer.js';
import {
  createLedgerService,
  createLedgerStore,
  createProjections,
  type LedgerService,
  type LedgerStore,
  type Projections,
} from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { eventCatalogue } from '../compose/index.js';

const MIGRATIONS = fileURLToPath(new URL('../db/migrations/', import.meta.url));

export interface LedgerBench {
  readonly db: Database;
  readonly writer: Writer;
  readonly projections: Projections;
  readonly ledgerStore: LedgerStore;
  readonly ledger: LedgerService;
}

/** Open and migrate `file` and start a ledger on it; the caller registers its projections. */
export function openLedgerBench(file: string, clock: Clock): LedgerBench {
  const db = openDatabase(file);
  migrate(db, loadMigrations(MIGRATIONS));
  const writer = createWriter(db);
  const projections = createProjections();
  const ledgerStore = createLedgerStore(db);
  const ledger = createLedgerService({
    inTransaction: () => db.inTransaction,
    store: ledgerStore,
    writer,
    clock,
    projections,
    events: eventCatalogue(),
  });
  return { db, writer, projections, ledgerStore, ledger };
}
