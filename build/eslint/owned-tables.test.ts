// The owned-tables rule, run through ESLint's own Linter on deliberately bad and good code.
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import plugin, { domainOf, tablesIn } from './owned-tables.js';

const config: Linter.Config[] = [
  { files: ['**/*.ts'], plugins: { local: plugin }, rules: { 'local/owned-tables': 'error' } },
];

function lint(filename: string, code: string): string[] {
  return new Linter({ configType: 'flat', cwd: '/repo' })
    .verify(code, config, { filename })
    .map((m) => `${String(m.line)}: ${m.message}`);
}

describe('owned-tables', () => {
  it("fires on SQL that reads or writes another domain's table, naming it and its owner", () => {
    const code = [
      "db.prepare('SELECT step FROM episodes WHERE episode_id = ?');",
      'db.prepare(`SELECT i.* FROM investigations i JOIN signals s ON s.x = i.y`);',
      "db.prepare('UPDATE episodes SET step = ?');",
      "db.prepare('INSERT OR IGNORE INTO incidents (a) VALUES (?)');",
      "db.prepare('DELETE FROM approval_requests');",
      "db.prepare('REPLACE INTO people (id) VALUES (?)');",
      'db.prepare(`SELECT count(*) FROM investigations, episode_signals es WHERE 1`);',
      'db.prepare(`SELECT ${cols} FROM "ledger" WHERE seq > ?`);',
    ].join('\n');
    expect(lint('/repo/server/investigate/x.store.ts', code)).toEqual([
      "1: 'episodes' belongs to episodes (server/db/table-owners.json): ask it through a port in server/episodes/index.ts",
      "2: 'signals' belongs to intake (server/db/table-owners.json): ask it through a port in server/intake/index.ts",
      "3: 'episodes' belongs to episodes (server/db/table-owners.json): ask it through a port in server/episodes/index.ts",
      "4: 'incidents' belongs to incidents (server/db/table-owners.json): ask it through a port in server/incidents/index.ts",
      "5: 'approval_requests' belongs to approvals (server/db/table-owners.json): ask it through a port in server/approvals/index.ts",
      "6: 'people' belongs to people (server/db/table-owners.json): ask it through a port in server/people/index.ts",
      "7: 'episode_signals' belongs to episodes (server/db/table-owners.json): ask it through a port in server/episodes/index.ts",
      "8: 'ledger' belongs to ledger (server/db/table-owners.json): ask it through a port in server/ledger/index.ts",
    ]);
  });

  it("stays quiet on the domain's own tables, on names that are not ours, and on prose", () => {
    const code = [
      "db.prepare('SELECT step FROM episodes e LEFT JOIN episode_signals s USING (episode_id)');",
      'db.prepare(`UPDATE episodes SET step = @step WHERE episode_id IN (SELECT value FROM json_each(?))`);',
      "pg.query('SELECT datname FROM pg_stat_activity JOIN pg_database USING (datid)');",
      "const why = 'signals from incidents, read from the ledger';",
      'db.prepare(`DELETE FROM "${table}"`);',
    ].join('\n');
    expect(lint('/repo/server/episodes/episodes.store.ts', code)).toEqual([]);
  });

  it('reads SQL written in lower case when the string starts like SQL', () => {
    const code = [
      "db.prepare('select step from episodes');",
      'db.prepare(`\n  insert into incidents (a) values (?)`);',
      "const why = 'read from episodes, then from incidents';",
    ].join('\n');
    expect(lint('/repo/server/investigate/x.store.ts', code)).toEqual([
      "1: 'episodes' belongs to episodes (server/db/table-owners.json): ask it through a port in server/episodes/index.ts",
      "2: 'incidents' belongs to incidents (server/db/table-owners.json): ask it through a port in server/incidents/index.ts",
    ]);
    expect(tablesIn('select a from t1 x, t2 as y join t3 z on 1')).toEqual(['t1', 't2', 't3']);
  });

  it('leaves the kernel (server/db/) and files outside a domain folder alone', () => {
    const code = "db.prepare('SELECT * FROM episodes JOIN incidents USING (incident_id)');";
    expect(lint('/repo/server/db/migrate.ts', code)).toEqual([]);
    expect(lint('/repo/server/runtime.ts', code)).toEqual([]);
    expect(lint('/repo/server/incidents/x.ts', code)).toHaveLength(1);
  });

  it('reads table names after FROM, JOIN, INTO, UPDATE and TABLE, aliases and comma lists', () => {
    expect(
      tablesIn('SELECT a FROM t1 x, t2 AS y JOIN t3 z ON 1 WHERE b IN (SELECT c FROM t4)'),
    ).toEqual(['t1', 't2', 't3', 't4']);
    expect(tablesIn('INSERT INTO t5 (a) SELECT a FROM t6 WHERE 1; UPDATE t7 SET a = 1')).toEqual([
      't5',
      't6',
      't7',
    ]);
    expect(domainOf('/x/server/episodes/list.query.ts')).toBe('episodes');
    expect(domainOf('/x/server/app.ts')).toBeNull();
  });
});
