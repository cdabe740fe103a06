// Projections are rebuilt from the ledger alone: empty their tables, replay every event.
import type { Database } from 'better-sqlite3';
import type { LedgerStore } from './ledger.store.js';
import type { Projections } from './projections.js';
import { toLedgerEvent } from './ledger.types.js';

export type ProjectionDump = Record<string, unknown[]>;

/** Every projection table's rows in a stable order, for comparing live and rebuilt state. */
export function dumpProjections(db: Database, projections: Projections): ProjectionDump {
  const out: ProjectionDump = {};
  for (const p of projections.all()) {
    for (const table of p.tables) {
      const cols = db
        .prepare<[string], { name: string }>(`SELECT name FROM pragma_table_info(?)`)
        .all(table)
        .map((c) => `"${c.name}"`);
      out[table] = db.prepare(`SELECT * FROM "${table}" ORDER BY ${cols.join(', ')}`).all();
    }
    for (const index of p.indexes ?? []) out[index.name] = index.check();
  }
  return out;
}

/** Replay the ledger into empty projection tables; call inside a transaction. */
export function replayLedger(db: Database, store: LedgerStore, projections: Projections): number {
  // Indexes first: their tables' deletes then find nothing to take out of them.
  for (const p of projections.all()) for (const index of p.indexes ?? []) index.clear();
  for (const p of projections.all())
    for (const table of p.tables) db.prepare(`DELETE FROM "${table}"`).run();
  const head = store.head().seq;
  let after = 0;
  let events = 0;
  for (;;) {
    const rows = store.range(after, head, 10_000);
    if (rows.length === 0) return events;
    for (const r of rows) {
      projections.apply(toLedgerEvent(r));
      events++;
    }
    after = rows[rows.length - 1]?.seq ?? head;
  }
}

export interface RebuildResult {
  readonly events: number;
  readonly tables: readonly string[];
  /** Tables whose rebuilt rows differ from what was there before. */
  readonly differing: readonly string[];
  readonly applied: boolean;
}

/**
 * Rebuild; with `dryRun` compare only and roll back, leaving the database as it was.
 * `transact` is the writer's transactNow, so the rebuilt state is on disk when this returns.
 */
export function rebuildProjections(
  db: Database,
  store: LedgerStore,
  projections: Projections,
  dryRun: boolean,
  transact: (fn: () => void) => void,
): RebuildResult {
  const before = dumpProjections(db, projections);
  let result: RebuildResult | null = null;
  const rollback = new Error('dry run');
  try {
    transact(() => {
      const events = replayLedger(db, store, projections);
      const after = dumpProjections(db, projections);
      const differing = Object.keys(after).filter(
        (t) => JSON.stringify(after[t]) !== JSON.stringify(before[t]),
      );
      result = { events, tables: Object.keys(after), differing, applied: !dryRun };
      if (dryRun) throw rollback;
    });
  } catch (err) {
    if (err !== rollback) throw err;
  }
  if (result === null) throw new Error('rebuild produced no result');
  return result;
}
