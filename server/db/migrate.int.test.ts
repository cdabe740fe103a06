// Starting a build with new migrations on a used database first writes a consistent copy.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { makeDataDir, testEnv } from '../testing/test-server.js';
import { ensureDataDir } from '../install/index.js';
import { loadMigrations, migrate } from './migrate.js';

const made = makeDataDir();
afterAll(() => {
  rmSync(made.dir, { recursive: true, force: true });
});

describe('migrating a used database', () => {
  it('copies it aside before the first pending migration runs', () => {
    const data = join(made.dir, 'data');
    ensureDataDir(data);
    const file = join(data, 'svc.db');
    writeFileSync(file, '', { mode: 0o600 });
    const all = loadMigrations(fileURLToPath(new URL('./migrations/', import.meta.url)));
    const old = new Database(file);
    migrate(old, all.slice(0, 1));
    old.close();

    const rt = createRuntime(loadConfig(testEnv(made.dir, made.machineIdFile)), {
      log: createLogger('silent'),
    });
    rt.close();

    const copies = readdirSync(data).filter((f) => f.startsWith('svc.db.before-migration-'));
    expect(copies).toHaveLength(1);
    const copy = new Database(join(data, copies[0] ?? ''), { readonly: true });
    expect(copy.prepare('SELECT id FROM schema_migrations').all()).toEqual([{ id: all[0]?.id }]);
    copy.close();
  });
});
