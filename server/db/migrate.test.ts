import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from './migrate.js';

const DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const SNAPSHOT = fileURLToPath(new URL('./schema-snapshot.sql', import.meta.url));

function schemaOf(db: Database.Database): string {
  const rows = db
    .prepare(
      `SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type, name`,
    )
    .all() as { sql: string }[];
  return `${rows.map((r) => `${r.sql};`).join('\n')}\n`;
}

describe('migrations', () => {
  it('are numbered files applied in order, and give the schema of the snapshot', () => {
    const migrations = loadMigrations(DIR);
    expect(migrations.map((m) => m.id)).toEqual([...migrations.map((m) => m.id)].sort());
    const db = new Database(':memory:');
    expect(migrate(db, migrations)).toEqual(migrations.map((m) => m.id));
    const schema = schemaOf(db);
    // UPDATE_SNAPSHOT=1 rewrites the snapshot after an intended schema change.
    if (process.env['UPDATE_SNAPSHOT'] === '1') writeFileSync(SNAPSHOT, schema);
    expect(schema).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });

  it('apply nothing twice and back the database up before applying to a used one', () => {
    const all = loadMigrations(DIR);
    const db = new Database(':memory:');
    migrate(db, all.slice(0, 1));
    let backups = 0;
    expect(migrate(db, all, () => backups++)).toEqual(all.slice(1).map((m) => m.id));
    expect(backups).toBe(all.length > 1 ? 1 : 0);
    expect(migrate(db, all, () => backups++)).toEqual([]);
  });

  it('refuse a database whose applied list is not a prefix of the known one', () => {
    const all = loadMigrations(DIR);
    const db = new Database(':memory:');
    migrate(db, all);
    const other = [{ id: '0001_something_else', sql: 'SELECT 1' }, ...all.slice(1)];
    expect(() => migrate(db, other)).toThrow(/out of sync.*refusing to start/);
    const newer = new Database(':memory:');
    migrate(newer, [...all, { id: '9999_from_a_newer_build', sql: 'CREATE TABLE x (a)' }]);
    expect(() => migrate(newer, all)).toThrow(/out of sync/);
  });

  it('roll a failing migration back whole', () => {
    const db = new Database(':memory:');
    const broken = [{ id: '0001_broken', sql: 'CREATE TABLE a (x); CREATE TABLE a (y);' }];
    expect(() => migrate(db, broken)).toThrow();
    expect(db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'a'`).get()).toEqual({
      n: 0,
    });
    expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: 0 });
  });
});
