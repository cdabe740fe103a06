import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';

export interface Migration {
  readonly id: string;
  readonly sql: string;
}

/** Migrations are `<number>_<name>.sql` files, applied in order, forward only. */
export function loadMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_[a-z0-9_]+\.sql$/.test(f))
    .sort((a, b) => Number(a.split('_')[0]) - Number(b.split('_')[0]))
    .map((f) => ({ id: f.replace(/\.sql$/, ''), sql: readFileSync(join(dir, f), 'utf8') }));
}

/**
 * Apply pending migrations, each in its own transaction. Refuses to start when the applied
 * list is not a prefix of the known list (a database from a newer or diverged build).
 */
export function migrate(
  db: Database,
  migrations: readonly Migration[],
  backup?: (db: Database) => void,
): string[] {
  db.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`,
  );
  const { applied, pending } = migrationState(db, migrations);
  if (pending.length > 0 && applied.length > 0 && backup) backup(db);
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  for (const m of pending) {
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.id, new Date().toISOString());
    })();
  }
  return pending.map((m) => m.id);
}

/**
 * Which migrations a database has and which it lacks, without changing it (read-only tools
 * use this to refuse an old schema). Throws when the applied list is not a prefix of the
 * known list.
 */
export function migrationState(
  db: Database,
  migrations: readonly Migration[],
): { applied: string[]; pending: Migration[] } {
  const table = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
    .get();
  const applied =
    table === undefined
      ? []
      : (
          db.prepare('SELECT id FROM schema_migrations ORDER BY rowid').all() as { id: string }[]
        ).map((r) => r.id);
  applied.forEach((id, i) => {
    if (migrations[i]?.id !== id) {
      throw new Error(
        `database migrations are out of sync: applied ${id} where this build expects ${migrations[i]?.id ?? 'nothing'}; refusing to start`,
      );
    }
  });
  return { applied, pending: migrations.slice(applied.length) };
}
