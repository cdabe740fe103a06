// `q` through the full-text index (episodes_fts) against the LIKE scan it replaced, kept here
// as the oracle: random episodes with awkward text (quotes, LIKE's and FTS5's own syntax,
// non-ASCII letters that Unicode folds to ASCII ones, NUL, surrogate pairs), changed and
// deleted after their insert, and random `q` terms; every answer must be the scan's.
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../db/migrate.js';
import { compileQuery } from '../shared/query-language.js';
import { createEpisodeListStore, EPISODE_QUERY_FIELDS, searchOf } from './list.query.js';

const MIGRATIONS = fileURLToPath(new URL('../db/migrations/', import.meta.url));
const NOW = Date.parse('2026-11-27T12:00:00Z');

/** A small deterministic generator (mulberry32), so that a failure repeats. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Few distinct pieces, so that random terms often match: ASCII in both cases, LIKE's and
// the query language's wildcards, FTS5 operators and quotes, letters whose Unicode case
// folding gives ASCII (Kelvin sign, long s, dotted I) or that have a case of their own.
const PIECES = [
  'a', 'b', 'c', 'A', 'B', 'C', 'k', 'K', 's', 'S', 'i', 'I', 'e', 'é', 'É',
  '\u212a', 'ſ', 'İ', 'ß', '😀', '漢', ' ', '-', '_', '%', '\\', '"', "'", '*', '?',
  '(', ')', ':', '^', '+', '\0', 'AND', 'OR', 'NOT', 'NEAR', 'NEAR(a b)', 'checkout',
  'Checkout', 'disk_full', 'DiskFull', 'pay', 'db-1',
]; // prettier-ignore

const QUERY_LANGUAGE = ['service:a*', '-note:*b*', 'alert:*K*', 'cause:*', 'fix~c'];

function fixture(seed: number) {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const text = (max: number): string =>
    Array.from({ length: Math.floor(rnd() * (max + 1)) }, () => pick(PIECES)).join('');
  const nullable = (): string | null => (rnd() < 0.3 ? null : text(6));
  const db = new Database(':memory:');
  migrate(db, loadMigrations(MIGRATIONS));
  const store = createEpisodeListStore(db, { rootEpisodeOf: () => null });

  const insert = db.prepare(
    `INSERT INTO episodes (episode_id, service, status, step, kind, t_open, alerts, firing,
       autonomy, confirmed, note, fix, diagnosis, first_seq, last_seq)
     VALUES (@id, @service, @status, 'closed', 'symptom', '2026-11-20T10:00:00.000Z', @alerts,
       0, 'shadow', @confirmed, @note, @fix, @diagnosis, @seq, @seq)`,
  );
  const row = (i: number) => ({
    id: `ep-${String(i)}-${text(2)}`,
    service: text(4),
    status: rnd() < 0.85 ? 'closed' : pick(['open', 'quiet']),
    alerts: JSON.stringify(Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => text(4))),
    confirmed: JSON.stringify(rnd() < 0.5 ? [] : [text(3)]),
    note: nullable(),
    fix: nullable(),
    diagnosis: nullable(),
    seq: i,
  });
  const rows = Array.from({ length: 300 }, (_, i) => row(i));
  db.transaction(() => {
    for (const r of rows) insert.run(r);
  })();
  // Changes after the insert: text columns (the index follows), other columns (it need
  // not), status (the list's filter) and deletes.
  const update = db.prepare(
    `UPDATE episodes SET service = @service, alerts = @alerts, note = @note, last_seq = last_seq + 1
     WHERE rowid = @rowid`,
  );
  for (let i = 0; i < 60; i++) {
    const r = row(1000 + i);
    update.run({
      rowid: 1 + Math.floor(rnd() * 300),
      service: r.service,
      alerts: r.alerts,
      note: r.note,
    });
  }
  db.prepare(
    `UPDATE episodes SET status = 'closed', t_close = '2026-11-20T11:00:00.000Z' WHERE rowid % 7 = 0`,
  ).run();
  db.prepare(`UPDATE episodes SET kind = 'failure' WHERE rowid % 5 = 0`).run();
  db.prepare(`DELETE FROM episodes WHERE rowid % 31 = 0`).run();

  const columns = db
    .prepare<[], Record<string, string | null>>(
      `SELECT episode_id, service, alerts, confirmed, note, fix, diagnosis FROM episodes`,
    )
    .all()
    .flatMap((r) => Object.values(r).filter((v): v is string => v !== null));
  /** A term: a piece of a stored value (case flipped at random), pieces, or wildcards. */
  const term = (): string => {
    const roll = rnd();
    if (roll < 0.5) {
      const value = pick(columns);
      const start = Math.floor(rnd() * value.length);
      const cut = value.slice(start, start + 1 + Math.floor(rnd() * 8));
      return [...cut].map((c) => (rnd() < 0.3 ? c.toUpperCase() : c)).join('');
    }
    if (roll < 0.8) return text(4);
    return `${text(2)}${pick(['*', '?', '**', '*?'])}${text(3)}`;
  };

  /** The scan as it answered before the index: the query language's bare word, LIKE. */
  const scan = (q: string, query: string | null): number[] => {
    const word = compileQuery({ kind: 'word', value: q }, EPISODE_QUERY_FIELDS, NOW);
    const extra = query === null ? null : store.matching(null, query, NOW).map((rowid) => rowid);
    const found = db
      .prepare<(string | number)[], number>(
        `SELECT rowid FROM episodes WHERE status = 'closed' AND ${word.sql}`,
      )
      .pluck()
      .all(...word.params);
    return (extra === null ? found : found.filter((r) => extra.includes(r))).sort((a, b) => a - b);
  };
  return { db, store, rnd, pick, term, scan };
}

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);

describe('q through the full-text index', () => {
  it('answers exactly as the LIKE scan for 600 random terms over 300 changed episodes', () => {
    const { db, store, term, scan } = fixture(20261127);
    const ways = { exact: 0, checked: 0, scan: 0 };
    let found = 0;
    for (let i = 0; i < 600; i++) {
      const q = term().trim();
      if (q === '') continue;
      const search = searchOf(q);
      ways[search === null ? 'scan' : search.exact ? 'exact' : 'checked'] += 1;
      const expected = scan(q, null);
      found += expected.length;
      expect(sorted(store.matching(q, null, NOW)), JSON.stringify(q)).toEqual(expected);
    }
    // Every path was taken, and the terms were not all misses.
    expect(ways.exact).toBeGreaterThan(150);
    expect(ways.checked).toBeGreaterThan(20);
    expect(ways.scan).toBeGreaterThan(20);
    expect(found).toBeGreaterThan(1000);
    db.close();
  });

  it('answers with `query` as the scan does', () => {
    const { db, store, term, scan, pick } = fixture(7);
    for (let i = 0; i < 150; i++) {
      const q = term().trim();
      if (q === '') continue;
      const query = pick(QUERY_LANGUAGE);
      expect(sorted(store.matching(q, query, NOW)), `${JSON.stringify(q)} ${query}`).toEqual(
        scan(q, query),
      );
    }
    db.close();
  });

  it('takes FTS syntax, quotes and short terms literally, and never fails on them', () => {
    const { db, store, scan } = fixture(99);
    for (const q of [
      '"',
      '""',
      '"a',
      'a"b"c',
      'AND',
      'OR',
      'NOT',
      'NEAR',
      'NEAR(a b)',
      'a AND b',
      'a OR b',
      '*',
      '**',
      '?',
      '*a*',
      'abc*',
      '^abc',
      'col:abc',
      'service:abc',
      '{a b}:c',
      '(a)',
      'a+b',
      '%',
      '_',
      '\\',
      '%_%',
      'a\\b',
      'é',
      'ÉÉÉ',
      '\u212a\u212a\u212a',
      'kkk',
      'ſss',
      'SSS',
      '😀😀',
      '😀😀😀',
      '\0',
      'a\0b\0c',
      "'",
      'a' + '"'.repeat(60),
    ])
      // prettier-ignore
      expect(sorted(store.matching(q, null, NOW)), JSON.stringify(q)).toEqual(scan(q, null));
    db.close();
  });

  it('reads the index for a term of three characters or more (no scan behind it)', () => {
    const db = new Database(':memory:');
    migrate(db, loadMigrations(MIGRATIONS));
    const store = createEpisodeListStore(db, { rootEpisodeOf: () => null });
    db.prepare(
      `INSERT INTO episodes (episode_id, service, status, step, kind, t_open, alerts, firing,
         autonomy, first_seq, last_seq)
       VALUES ('ep-1', 'Checkout', 'closed', 'closed', 'symptom', '2026-11-20T10:00:00Z',
         '["PgConn"]', 0, 'shadow', 1, 1)`,
    ).run();
    expect(store.matching('CHECKOUT', null, NOW)).toEqual([1]);
    expect(store.matching('pgc*n', null, NOW)).toEqual([1]);
    // Emptied behind the table's back, the index answers nothing: it is what was read.
    db.prepare(`INSERT INTO episodes_fts (episodes_fts) VALUES ('delete-all')`).run();
    expect(store.matching('CHECKOUT', null, NOW)).toEqual([]);
    expect(store.matching('pgc*n', null, NOW)).toEqual([]);
    // Shorter than a trigram: the scan.
    expect(store.matching('pg', null, NOW)).toEqual([1]);
    db.close();
  });

  it('is filled by its migration with the episodes written before it', () => {
    const all = loadMigrations(MIGRATIONS);
    const at = all.findIndex((m) => m.id.endsWith('_episodes_fts'));
    expect(at).toBeGreaterThan(0);
    const db = new Database(':memory:');
    migrate(db, all.slice(0, at));
    const insert = db.prepare(
      `INSERT INTO episodes (episode_id, service, status, step, kind, t_open, alerts, firing,
         autonomy, note, first_seq, last_seq)
       VALUES (?, ?, 'closed', 'closed', 'symptom', '2026-11-20T10:00:00Z', '["PgConn"]', 0,
         'shadow', ?, 1, 1)`,
    );
    insert.run('ep-1', 'Checkout', 'Disk\0Full');
    insert.run('ep-2', 'payments', null);
    migrate(db, all);
    const store = createEpisodeListStore(db, { rootEpisodeOf: () => null });
    expect(store.matching('checkout', null, NOW)).toEqual([1]);
    expect(store.matching('pgconn', null, NOW)).toEqual([1, 2]);
    expect(store.matching('disk', null, NOW)).toEqual([1]);
    expect(store.matching('full', null, NOW)).toEqual([]); // after the NUL, as LIKE reads it
    expect(() =>
      db
        .prepare(`INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 1)`)
        .run(),
    ).not.toThrow();
    db.close();
  });

  it('phrases each literal run, ASCII-lowered and quoted; exact only for a run alone', () => {
    expect(searchOf('CheckOut')).toEqual({ match: '"checkout"', exact: true });
    expect(searchOf('É"K')).toEqual({ match: '"É""k"', exact: true });
    expect(searchOf('pg*conn?x')).toEqual({ match: '"conn"', exact: false });
    expect(searchOf('abc*def')).toEqual({ match: '"abc" AND "def"', exact: false });
    expect(searchOf('😀😀😀')).toEqual({ match: '"😀😀😀"', exact: true });
    expect(searchOf('😀😀')).toBeNull();
    expect(searchOf('ab')).toBeNull();
    expect(searchOf('a*b?c')).toBeNull();
    expect(searchOf('abc\0')).toBeNull();
  });
});
