// svc-core's read commands (ledger-verify, doctor, connectors, estate resolve) as operators
// run them, from the bundle in a child process: they open the database read-only and never
// migrate it, so reading a folder can never change it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, migrationState } from '../db/migrate.js';
import { ensureDataDir } from '../install/index.js';
import { loadOrCreateInstallKey } from '../ledger/index.js';
import { buildTestServer, makeDataDir, testEnv } from '../testing/test-server.js';
import { requireBundle, runCli } from '../testing/processes.js';

requireBundle();

const READ_COMMANDS: readonly (readonly string[])[] = [
  ['ledger-verify'],
  ['ledger-verify', '--json'],
  ['doctor', '--json'],
  ['connectors', 'list'],
  ['connectors', 'check'],
  ['estate', 'resolve', 'service=pay'],
];

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('svc-core read commands', () => {
  it('refuse a database that needs a migration, without migrating or copying it', async () => {
    const made = makeDataDir();
    temps.push(made.dir);
    const data = join(made.dir, 'data');
    ensureDataDir(data);
    const file = join(data, 'svc.db');
    writeFileSync(file, '', { mode: 0o600 });
    const all = loadMigrations(fileURLToPath(new URL('../db/migrations/', import.meta.url)));
    const old = new Database(file);
    migrate(old, all.slice(0, -1)); // a folder last run by the build before this one
    old.pragma('journal_mode = WAL');
    old.close();
    loadOrCreateInstallKey(data, { fips: false, name: 'test' });
    const before = sha(file);
    const env = testEnv(made.dir, made.machineIdFile);
    const last = all[all.length - 1]?.id ?? '';

    for (const args of READ_COMMANDS) {
      const r = await runCli(env, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toBe(
        `svc-core: the database ${file} needs migration ${last} (this build's schema); read commands never change it: start the service once to migrate it\n`,
      );
    }
    const db = new Database(file, { readonly: true });
    expect({ n: migrationState(db, all).applied.length }).toEqual({
      n: all.length - 1,
    });
    db.close();
    expect(sha(file)).toBe(before);
    expect(readdirSync(data).filter((f) => f.includes('before-migration'))).toEqual([]);
  });

  it('read a current folder without changing the database file', async () => {
    const s = await buildTestServer();
    temps.push(s.dir);
    await s.stop();
    const file = join(s.dir, 'data', 'svc.db');
    const before = sha(file);
    for (const args of READ_COMMANDS) {
      const r = await runCli(s.env, args);
      expect(r.stderr, args.join(' ')).not.toMatch(/readonly|read-only|migrat/i);
    }
    const ok = await runCli(s.env, ['ledger-verify']);
    expect(ok.code).toBe(0);
    expect(sha(file)).toBe(before);
  });
});
