// One owner per table (server/db/table-owners.json, which build/eslint/owned-tables.js
// enforces): every table of the schema has exactly one owning domain, and each projection
// rebuilds only tables of one owner.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { makeDataDir, testEnv } from '../testing/test-server.js';

const MAP = fileURLToPath(new URL('./table-owners.json', import.meta.url));
const SNAPSHOT = fileURLToPath(new URL('./schema-snapshot.sql', import.meta.url));
const SERVER = fileURLToPath(new URL('../', import.meta.url));

const text = readFileSync(MAP, 'utf8');
const owners = (JSON.parse(text) as { owners: Record<string, string> }).owners;
// Virtual tables (full-text indexes) are tables a domain names in SQL; the shadow tables
// SQLite makes for them ('episodes_fts_data', quoted) are the index's own, owned with it.
const tables = [
  ...readFileSync(SNAPSHOT, 'utf8').matchAll(/^CREATE (?:VIRTUAL )?TABLE (\w+)/gm),
].map((m) => m[1] ?? '');

describe('table owners', () => {
  const made = makeDataDir();
  afterAll(() => {
    rmSync(made.dir, { recursive: true, force: true });
  });

  it('name every table of the schema exactly once, and nothing else', () => {
    expect(Object.keys(owners).sort()).toEqual([...tables].sort());
    // JSON.parse keeps the last of two equal keys: count them in the text itself.
    for (const table of tables) expect(text.split(`"${table}":`).length - 1, table).toBe(1);
  });

  it('are domain folders of server/ (db: the kernel, whose migrations own no domain)', () => {
    const folders = new Set(
      readdirSync(SERVER, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name),
    );
    for (const [table, owner] of Object.entries(owners))
      expect(folders.has(owner), table).toBe(true);
  });

  it("match each projection's tables: one owner per projection, every table known", () => {
    const rt = createRuntime(loadConfig(testEnv(made.dir, made.machineIdFile)), {
      log: createLogger('silent'),
    });
    try {
      expect(rt.projections.all().map((p) => p.name)).toContain('episodes');
      for (const p of rt.projections.all()) {
        const of = new Set(p.tables.map((t) => owners[t] ?? `unknown table ${t}`));
        expect(of.size, p.name).toBeLessThanOrEqual(1);
        for (const owner of of) expect(owner, p.name).not.toMatch(/^unknown|^db$/);
      }
    } finally {
      rt.close();
    }
  });
});
