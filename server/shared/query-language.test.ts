import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors.js';
import {
  MAX_QUERY_DEPTH,
  MAX_QUERY_LENGTH,
  compileQuery,
  formatQuery,
  parseQuery,
  type QueryFields,
  type QueryNode,
} from './query-language.js';

const eq = (field: string, value: string): QueryNode => ({ kind: 'eq', field, value });
const word = (value: string): QueryNode => ({ kind: 'word', value });
const and = (...items: QueryNode[]): QueryNode => ({ kind: 'and', items });
const or = (...items: QueryNode[]): QueryNode => ({ kind: 'or', items });
const not = (item: QueryNode): QueryNode => ({ kind: 'not', item });

/** The bad_query error a call throws; fails the test when it throws nothing or something else. */
function badQueryOf(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).code).toBe('bad_query');
    return err as InvalidInputError;
  }
  throw new Error('expected bad_query, nothing was thrown');
}

describe('parseQuery: the forms', () => {
  it('reads an empty or blank query as match-everything', () => {
    expect(parseQuery('')).toEqual({ kind: 'all' });
    expect(parseQuery('  \t\n ')).toEqual({ kind: 'all' });
    expect(parseQuery('()')).toEqual({ kind: 'all' });
  });

  it('reads field:value equality, keeping * wildcards and the field as written', () => {
    expect(parseQuery('service:api')).toEqual(eq('service', 'api'));
    expect(parseQuery('service:api-*')).toEqual(eq('service', 'api-*'));
    expect(parseQuery('Service_2:x')).toEqual(eq('Service_2', 'x'));
  });

  it('lets an unquoted value hold colons, dashes, backslashes and OR', () => {
    expect(parseQuery('ts:2026-01-02T10:30*')).toEqual(eq('ts', '2026-01-02T10:30*'));
    expect(parseQuery('path:C:\\temp')).toEqual(eq('path', 'C:\\temp'));
    expect(parseQuery('a:-1')).toEqual(eq('a', '-1'));
    expect(parseQuery('a:OR')).toEqual(eq('a', 'OR'));
  });

  it('reads quoted values with \\" and \\\\ escapes', () => {
    expect(parseQuery('msg:"connection refused"')).toEqual(eq('msg', 'connection refused'));
    expect(parseQuery('msg:"say \\"hi\\""')).toEqual(eq('msg', 'say "hi"'));
    expect(parseQuery('msg:"C:\\\\temp"')).toEqual(eq('msg', 'C:\\temp'));
    expect(parseQuery('msg:""')).toEqual(eq('msg', ''));
    expect(parseQuery('msg:"(a) OR b"')).toEqual(eq('msg', '(a) OR b'));
  });

  it('reads space-separated terms as AND, with any whitespace', () => {
    expect(parseQuery('a:1 b:2\tc:3\n d:4')).toEqual(
      and(eq('a', '1'), eq('b', '2'), eq('c', '3'), eq('d', '4')),
    );
  });

  it('reads OR as alternatives, binding looser than AND', () => {
    expect(parseQuery('a:1 OR b:2')).toEqual(or(eq('a', '1'), eq('b', '2')));
    expect(parseQuery('a:1 b:2 OR c:3')).toEqual(or(and(eq('a', '1'), eq('b', '2')), eq('c', '3')));
    expect(parseQuery('a:1 OR b:2 c:3 OR d:4')).toEqual(
      or(eq('a', '1'), and(eq('b', '2'), eq('c', '3')), eq('d', '4')),
    );
  });

  it('groups with parentheses', () => {
    expect(parseQuery('a:1 (b:2 OR c:3)')).toEqual(
      and(eq('a', '1'), or(eq('b', '2'), eq('c', '3'))),
    );
    expect(parseQuery('(a:1)OR(b:2)')).toEqual(or(eq('a', '1'), eq('b', '2')));
    expect(parseQuery('( ( a:1 ) )')).toEqual(eq('a', '1'));
    // An explicit group stays a group: the tree mirrors what was written.
    expect(parseQuery('a:1 (b:2 c:3)')).toEqual(and(eq('a', '1'), and(eq('b', '2'), eq('c', '3'))));
  });

  it('treats OR as a keyword only in upper case and as a word of its own', () => {
    expect(parseQuery('a:1 or b:2')).toEqual(and(eq('a', '1'), word('or'), eq('b', '2')));
    expect(parseQuery('ORACLE')).toEqual(word('ORACLE'));
    expect(parseQuery('"OR"')).toEqual(word('OR'));
    expect(parseQuery('OR:x')).toEqual(eq('OR', 'x'));
  });

  it('negates any term or group with a leading -', () => {
    expect(parseQuery('-service:api')).toEqual(not(eq('service', 'api')));
    expect(parseQuery('-msg~"x"')).toEqual(not({ kind: 'text', field: 'msg', value: 'x' }));
    expect(parseQuery('-(a:1 OR b:2)')).toEqual(not(or(eq('a', '1'), eq('b', '2'))));
    expect(parseQuery('--a:1')).toEqual(not(not(eq('a', '1'))));
    expect(parseQuery('-timeout')).toEqual(not(word('timeout')));
    expect(parseQuery('a:1 -b:2')).toEqual(and(eq('a', '1'), not(eq('b', '2'))));
  });

  it('reads field~"text" as a text match, quoted or not', () => {
    expect(parseQuery('message~"time?out"')).toEqual({
      kind: 'text',
      field: 'message',
      value: 'time?out',
    });
    expect(parseQuery('message~refused')).toEqual({
      kind: 'text',
      field: 'message',
      value: 'refused',
    });
  });

  it('reads comparisons with every operator and unit', () => {
    const cmp = (op: string, seconds: number, unit: string | null) => ({
      kind: 'compare',
      field: 'duration',
      op,
      seconds,
      unit,
    });
    expect(parseQuery('duration>5m')).toEqual(cmp('>', 300, 'm'));
    expect(parseQuery('duration<30s')).toEqual(cmp('<', 30, 's'));
    expect(parseQuery('duration>=2h')).toEqual(cmp('>=', 7200, 'h'));
    expect(parseQuery('duration<=1d')).toEqual(cmp('<=', 86400, 'd'));
    expect(parseQuery('duration>1w')).toEqual(cmp('>', 604800, 'w'));
    expect(parseQuery('duration>5min')).toEqual(cmp('>', 300, 'm'));
    expect(parseQuery('count>=5')).toEqual({
      kind: 'compare',
      field: 'count',
      op: '>=',
      seconds: 5,
      unit: null,
    });
  });

  it('reads opened<Nd and opened>Nd as age, and last:Nd as a window', () => {
    expect(parseQuery('opened<7d')).toEqual({
      kind: 'age',
      field: 'opened',
      op: '<',
      seconds: 7 * 86400,
    });
    expect(parseQuery('opened>12h')).toEqual({
      kind: 'age',
      field: 'opened',
      op: '>',
      seconds: 12 * 3600,
    });
    expect(parseQuery('opened<=1w')).toEqual({
      kind: 'age',
      field: 'opened',
      op: '<=',
      seconds: 604800,
    });
    expect(parseQuery('last:7d')).toEqual({ kind: 'last', seconds: 7 * 86400 });
    expect(parseQuery('last:24h')).toEqual({ kind: 'last', seconds: 86400 });
    expect(parseQuery('last:2w')).toEqual({ kind: 'last', seconds: 2 * 604800 });
  });

  it('reads data.<key> paths, nested, with - and _ in keys', () => {
    expect(parseQuery('data.http.status:503')).toEqual(eq('data.http.status', '503'));
    expect(parseQuery('data.user-id:u_1')).toEqual(eq('data.user-id', 'u_1'));
    expect(parseQuery('data.0:x')).toEqual(eq('data.0', 'x'));
  });

  it('reads a field-less word or quoted phrase as a word', () => {
    expect(parseQuery('timeout')).toEqual(word('timeout'));
    expect(parseQuery('"connection refused" db')).toEqual(
      and(word('connection refused'), word('db')),
    );
    expect(parseQuery('50%')).toEqual(word('50%'));
    expect(parseQuery('1:2')).toEqual(word('1:2'));
  });
});

describe('parseQuery: errors name the character where the query stopped making sense', () => {
  const cases: [query: string, position: number, says: string][] = [
    ['service:', 8, 'expected a value after "service:"'],
    ['service: api', 8, 'expected a value after "service:"'],
    ['service:(api)', 8, 'expected a value after "service:"'],
    ['msg:"abc', 8, 'unterminated quotation mark opened at character 4'],
    ['msg:"abc\\', 9, 'unterminated quotation mark opened at character 4'],
    ['"abc', 4, 'unterminated quotation mark opened at character 0'],
    ['msg:"a\\nb"', 6, 'unknown escape "\\n"'],
    ['duration>5x', 10, 'unknown unit "x" in "5x" (use s, m, h, d or w)'],
    ['duration>5m30s', 10, 'unknown unit "m30s"'],
    ['duration>1.5h', 9, 'whole number'],
    ['duration>', 9, 'expected a number after "duration>"'],
    ['duration>-5m', 9, 'expected a number'],
    ['opened<7', 8, 'expected a unit after "7"'],
    ['last:7', 6, 'expected a unit after "7"'],
    ['last:d', 5, 'expected a number after "last:"'],
    ['last:99999999999999999999d', 5, 'too large'],
    ['a:1 OR', 6, 'expected a term after "OR"'],
    ['a:1 OR OR b:2', 7, 'expected a term after "OR"'],
    ['a:1 OR )', 7, 'expected a term after "OR"'],
    ['OR a:1', 0, 'expected a term before "OR"'],
    ['(OR a:1)', 1, 'expected a term before "OR"'],
    ['a:1 -', 5, 'expected a term right after "-"'],
    ['- a:1', 1, 'expected a term right after "-"'],
    ['-OR a', 1, 'expected a term right after "-"'],
    ['a:1 )', 4, 'this ")" closes no "("'],
    ['(a:1 OR b:2', 11, 'the "(" at character 0 is never closed'],
    ['a:1 (', 5, 'the "(" at character 4 is never closed'],
    ['a:1(b:2)', 3, 'unexpected "(" right after the value'],
    ['a:"x"y', 5, 'unexpected "y" right after the value'],
    ['abc"def"', 3, 'unexpected """ right after the value'],
    ['data..x:1', 0, '"data..x" is not a field name'],
    ['data.:1', 0, '"data." is not a field name'],
  ];
  it.each(cases)('%j fails at %i: %s', (query, position, says) => {
    const err = badQueryOf(() => parseQuery(query));
    expect(err.details).toEqual({ field: 'query', position });
    expect(err.message.startsWith(`query stopped making sense at character ${position}: `)).toBe(
      true,
    );
    expect(err.message).toContain(says);
  });

  it('refuses a query longer than the limit', () => {
    expect(() => parseQuery('a'.repeat(MAX_QUERY_LENGTH))).not.toThrow();
    const err = badQueryOf(() => parseQuery('a'.repeat(MAX_QUERY_LENGTH + 1)));
    expect(err.details['position']).toBe(MAX_QUERY_LENGTH);
    expect(err.message).toContain(`longer than ${MAX_QUERY_LENGTH} characters`);
  });

  it('refuses nesting deeper than the limit, counting groups and negations', () => {
    const nested = (n: number) => `${'('.repeat(n)}a:1${')'.repeat(n)}`;
    expect(() => parseQuery(nested(MAX_QUERY_DEPTH))).not.toThrow();
    const err = badQueryOf(() => parseQuery(nested(MAX_QUERY_DEPTH + 1)));
    expect(err.details['position']).toBe(MAX_QUERY_DEPTH);
    expect(err.message).toContain(`deeper than ${MAX_QUERY_DEPTH} levels`);
    expect(() => parseQuery(`${'-'.repeat(MAX_QUERY_DEPTH)}a:1`)).not.toThrow();
    expect(
      badQueryOf(() => parseQuery(`${'-'.repeat(MAX_QUERY_DEPTH + 1)}a:1`)).details['position'],
    ).toBe(MAX_QUERY_DEPTH);
    expect(
      badQueryOf(() => parseQuery(`${'-('.repeat(17)}a:1${')'.repeat(17)}`)).details['position'],
    ).toBe(32);
  });
});

describe('formatQuery', () => {
  it('prints the shortest faithful spelling', () => {
    expect(formatQuery({ kind: 'all' })).toBe('');
    expect(formatQuery(parseQuery('a:1  b:2   OR c:3'))).toBe('a:1 b:2 OR c:3');
    expect(formatQuery(parseQuery('(a:1 OR b:2) c:3'))).toBe('(a:1 OR b:2) c:3');
    expect(formatQuery(parseQuery('-(a:1 b:2)'))).toBe('-(a:1 b:2)');
    expect(formatQuery(parseQuery('a:1 (b:2 c:3)'))).toBe('a:1 (b:2 c:3)');
    expect(formatQuery(parseQuery('(a:1 OR b:2) OR c:3'))).toBe('(a:1 OR b:2) OR c:3');
    expect(formatQuery(parseQuery('duration>5min count<=3'))).toBe('duration>5m count<=3');
    expect(formatQuery(parseQuery('opened<1w last:24h'))).toBe('opened<7d last:1d');
    expect(formatQuery(parseQuery('last:90s'))).toBe('last:90s');
    expect(formatQuery(parseQuery('msg~refused'))).toBe('msg~"refused"');
  });

  it('quotes exactly the values and words that need it', () => {
    expect(formatQuery(eq('a', 'x y'))).toBe('a:"x y"');
    expect(formatQuery(eq('a', 'say "hi" \\o/'))).toBe('a:"say \\"hi\\" \\\\o/"');
    expect(formatQuery(eq('a', ''))).toBe('a:""');
    expect(formatQuery(eq('a', 'C:\\temp'))).toBe('a:C:\\temp');
    expect(formatQuery(word('OR'))).toBe('"OR"');
    expect(formatQuery(word('-x'))).toBe('"-x"');
    expect(formatQuery(word('a:b'))).toBe('"a:b"');
    expect(formatQuery(word('plain'))).toBe('plain');
  });

  it('prints nodes parseQuery never makes as something equivalent', () => {
    expect(formatQuery(and(eq('a', '1')))).toBe('a:1');
    expect(formatQuery(and())).toBe('()');
    expect(formatQuery(or())).toBe('-()');
    expect(formatQuery(and({ kind: 'all' }, eq('a', '1')))).toBe('() a:1');
    expect(parseQuery(formatQuery(not({ kind: 'all' })))).toEqual(not({ kind: 'all' }));
  });

  it.each([
    'service:api kind:alert OR -data.http.status:5* duration>=5m opened<7d last:7d',
    '(a:1 OR b:2) -(c~"x?y") "conn refused" timeout',
    'a:"x\\"y" b:"\\\\" c:"" d:"OR"',
    '-(-(a:1 OR (b:2 c:3)) OR d:4)',
  ])('round-trips %j', (query) => {
    const node = parseQuery(query);
    expect(parseQuery(formatQuery(node))).toEqual(node);
  });
});

// ---------------------------------------------------------------------------------------
// compileQuery, executed against a real SQLite table: the rows that match prove the SQL.

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const hoursAgo = (h: number) => new Date(NOW - h * 3_600_000).toISOString();

const ROWS = [
  {
    id: 1,
    service: 'api',
    kind: 'alert',
    count: 3,
    duration: 300,
    ts: hoursAgo(2),
    tags: '["prod","web"]',
    data: '{"http":{"status":503},"region":"eu-west","ok":false}',
    message: 'Timeout talking to DB',
  },
  {
    id: 2,
    service: 'API-gateway',
    kind: 'action',
    count: 10,
    duration: 3600,
    ts: hoursAgo(48),
    tags: '["staging"]',
    data: '{"http":{"status":200},"ok":true,"user-id":"u_1"}',
    message: 'restart done',
  },
  {
    id: 3,
    service: 'db',
    kind: 'alert',
    count: 0,
    duration: 30,
    ts: hoursAgo(24 * 9 + 3.5),
    tags: '[]',
    data: '{"note":"50% disk","n":null}',
    message: 'disk 50% full',
  },
  {
    id: 4,
    service: null,
    kind: 'note',
    count: null,
    duration: null,
    ts: '2026-01-02T00:00:00.000Z',
    tags: null,
    data: null,
    message: null,
  },
  {
    id: 5,
    service: 'web_1',
    kind: 'alert',
    count: 7,
    duration: 90,
    ts: hoursAgo(1 / 60),
    tags: '["prod"]',
    data: '{"http":{"status":404},"list":["a"]}',
    message: 'conn refused (x)',
  },
];

const FIELDS: QueryFields = {
  list: 'test',
  fields: {
    service: { column: 'service', type: 'text' },
    kind: { column: 'kind', type: 'enum', values: ['alert', 'action', 'note'] },
    count: { column: 'count', type: 'integer' },
    duration: { column: 'duration', type: 'seconds' },
    ts: { column: 'ts', type: 'time' },
    tag: { column: 'tags', type: 'text', multi: 'json_array' },
    message: { column: 'message', type: 'text' },
  },
  dataColumn: 'data',
  timeColumn: 'ts',
  textColumns: ['message', 'service'],
};

describe('compileQuery against SQLite', () => {
  let db: Database.Database;

  beforeAll(() => {
    db = new Database(':memory:');
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, service TEXT, kind TEXT, count INTEGER,
      duration INTEGER, ts TEXT NOT NULL, tags TEXT, data TEXT, message TEXT)`);
    const insert =
      db.prepare(`INSERT INTO t VALUES (@id, @service, @kind, @count, @duration, @ts, @tags,
      @data, @message)`);
    for (const row of ROWS) insert.run(row);
  });
  afterAll(() => db.close());

  function ids(query: string, fields: QueryFields = FIELDS): number[] {
    const { sql, params } = compileQuery(parseQuery(query), fields, NOW);
    expect(sql.split('?').length - 1).toBe(params.length);
    const rows = db.prepare(`SELECT id FROM t WHERE ${sql} ORDER BY id`).all(...params) as {
      id: number;
    }[];
    return rows.map((r) => r.id);
  }

  it('matches everything on an empty query', () => {
    expect(compileQuery(parseQuery(''), FIELDS, NOW)).toEqual({ sql: '1', params: [] });
    expect(ids('  ')).toEqual([1, 2, 3, 4, 5]);
  });

  it('compares text case-insensitively, whole value unless * says otherwise', () => {
    expect(ids('service:API')).toEqual([1]);
    expect(ids('service:api*')).toEqual([1, 2]);
    expect(ids('service:*1')).toEqual([5]);
    expect(ids('service:*')).toEqual([1, 2, 3, 5]);
  });

  it('escapes LIKE wildcards in user text', () => {
    // "_" in "web_1" is literal: "webX1" would match an unescaped LIKE, and must not.
    db.prepare(
      `INSERT INTO t (id, service, ts) VALUES (99, 'webX1', '2000-01-01T00:00:00.000Z')`,
    ).run();
    try {
      expect(ids('service:web_*')).toEqual([5]);
      expect(ids('message~"50%"')).toEqual([3]);
      expect(ids('message~"0% f"')).toEqual([3]);
      expect(ids('message~"%"')).toEqual([3]);
    } finally {
      db.prepare('DELETE FROM t WHERE id = 99').run();
    }
  });

  it('binds every value as a parameter, never as SQL', () => {
    const { sql, params } = compileQuery(
      parseQuery(`service:"x' OR 1=1 --" message~"');DROP TABLE t;--"`),
      FIELDS,
      NOW,
    );
    expect(sql).not.toContain('1=1');
    expect(sql).not.toContain('DROP');
    expect(params).toContain("x' OR 1=1 --");
    expect(ids(`service:"x' OR 1=1 --"`)).toEqual([]);
  });

  it('checks enum values, accepting any case and wildcards over the allowed ones', () => {
    expect(ids('kind:alert')).toEqual([1, 3, 5]);
    expect(ids('kind:ALERT')).toEqual([1, 3, 5]);
    expect(ids('kind:a*')).toEqual([1, 2, 3, 5]);
    const err = badQueryOf(() => compileQuery(parseQuery('service:x kind:bogus'), FIELDS, NOW));
    expect(err.message).toBe(
      'query stopped making sense at character 10: "bogus" is not a kind; use one of: alert, action, note',
    );
    expect(err.details).toEqual({
      field: 'query',
      position: 10,
      allowed: ['alert', 'action', 'note'],
    });
    expect(badQueryOf(() => ids('kind:z*')).message).toContain('use one of: alert, action, note');
  });

  it('answers 1,000 stars over an enum or a text field at once', () => {
    const stars = '*'.repeat(1000);
    const started = performance.now();
    expect(badQueryOf(() => ids(`kind:${stars}x`)).message).toContain('use one of');
    expect(ids(`kind:${stars}`)).toEqual([1, 2, 3, 4, 5]);
    expect(ids(`service:${stars}x`)).toEqual([]);
    expect(ids(`service:${'*a'.repeat(500)}*x`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('compares integers, refusing what is not a whole number', () => {
    expect(ids('count:0')).toEqual([3]);
    expect(ids('count:-0')).toEqual([3]);
    expect(ids('count>5')).toEqual([2, 5]);
    expect(ids('count<=3')).toEqual([1, 3]);
    expect(badQueryOf(() => ids('count:many')).message).toContain(
      'count takes a whole number, not "many"',
    );
    expect(badQueryOf(() => ids('count:1*')).message).toContain('whole number');
    expect(badQueryOf(() => ids('count>5m')).message).toContain(
      'count is a number, not a duration',
    );
    expect(badQueryOf(() => ids('count~"1"')).message).toContain(
      '~ matches text, and count is a number',
    );
  });

  it('compares durations in seconds, with units', () => {
    expect(ids('duration>5m')).toEqual([2]);
    expect(ids('duration>=5m')).toEqual([1, 2]);
    expect(ids('duration<2min')).toEqual([3, 5]);
    expect(ids('duration<=1h duration>1m')).toEqual([1, 2, 5]);
    expect(ids('duration:90s')).toEqual([5]);
    expect(ids('duration:1h')).toEqual([2]);
    expect(badQueryOf(() => ids('duration>300')).message).toContain(
      'duration is a duration and needs a unit',
    );
    expect(badQueryOf(() => ids('duration:soon')).message).toContain(
      'duration takes a duration such as 5m',
    );
    expect(badQueryOf(() => ids('service>5m')).message).toContain(
      '> compares numbers and durations, and service is neither',
    );
    expect(badQueryOf(() => ids('ts<5m')).message).toContain('ts is neither');
  });

  it('matches times by date or timestamp prefix (UTC)', () => {
    expect(ids('ts:2026-01-02')).toEqual([4]);
    expect(ids('ts:2026-03-01')).toEqual([1, 5]);
    expect(ids('ts:2026-03-01T10')).toEqual([1]);
    expect(ids('ts:2026-02*')).toEqual([2, 3]);
    expect(ids('ts:2026-*-02T00:00*')).toEqual([4]);
    expect(ids('ts~"T10:"')).toEqual([1]);
    expect(badQueryOf(() => ids('ts:yesterday')).message).toContain(
      'ts takes a date such as 2026-01-02',
    );
  });

  it('matches JSON-array columns when any element matches', () => {
    expect(ids('tag:prod')).toEqual([1, 5]);
    expect(ids('tag:PROD')).toEqual([1, 5]);
    expect(ids('tag:sta*')).toEqual([2]);
    expect(ids('tag~"ag"')).toEqual([2]);
    expect(ids('tag~"r?d"')).toEqual([1, 5]);
    expect(ids('-tag:prod')).toEqual([2, 3, 4]);
  });

  it('matches text with ~: contains, ? one character, * any run', () => {
    expect(ids('message~"timeout"')).toEqual([1]);
    expect(ids('message~"t?lking"')).toEqual([1]);
    expect(ids('message~"t?king"')).toEqual([]);
    expect(ids('message~"conn*(x)"')).toEqual([5]);
    expect(ids('message~""')).toEqual([1, 2, 3, 5]);
  });

  it('matches inside event data, nested, as case-insensitive text', () => {
    expect(ids('data.http.status:503')).toEqual([1]);
    expect(ids('data.http.status:5*')).toEqual([1]);
    expect(ids('data.http.status:*0*')).toEqual([1, 2, 5]);
    expect(ids('data.region:EU-WEST')).toEqual([1]);
    expect(ids('data.user-id:u_1')).toEqual([2]);
    expect(ids('data.ok:true')).toEqual([2]);
    expect(ids('data.ok:false')).toEqual([1]);
    expect(ids('data.n:null')).toEqual([3]);
    expect(ids('data.note~"50%"')).toEqual([3]);
    expect(ids('data.missing:x')).toEqual([]);
    expect(ids('-data.http.status:503')).toEqual([2, 3, 4, 5]);
    const { sql } = compileQuery(parseQuery('data.user-id:x'), FIELDS, NOW);
    expect(sql).toContain(`'$."user-id"'`);
  });

  it('refuses data.* where the list has no data column, and comparisons on data', () => {
    const noData: QueryFields = { ...FIELDS };
    delete (noData as { dataColumn?: string }).dataColumn;
    const err = badQueryOf(() => ids('data.x:1', noData));
    expect(err.message).toContain('unknown field "data.x"');
    expect(err.details['known']).not.toContain('data.*');
    expect(badQueryOf(() => ids('data.http.status>5')).message).toContain(
      'data.http.status is neither',
    );
  });

  it('searches the text columns for a bare word or phrase', () => {
    expect(ids('timeout')).toEqual([1]);
    expect(ids('gateway')).toEqual([2]);
    expect(ids('"conn refused"')).toEqual([5]);
    expect(ids('t?lk')).toEqual([1]);
    expect(ids('-timeout')).toEqual([2, 3, 4, 5]);
    const noText: QueryFields = { ...FIELDS, textColumns: [] };
    expect(badQueryOf(() => ids('timeout', noText)).message).toContain(
      'a test query has no free-text search, so "timeout" needs a field',
    );
  });

  it('compares the time column for opened and last:', () => {
    expect(ids('last:1d')).toEqual([1, 5]);
    expect(ids('last:3d')).toEqual([1, 2, 5]);
    expect(ids('last:1h')).toEqual([5]);
    expect(ids('opened<7d')).toEqual([1, 2, 5]);
    expect(ids('opened>7d')).toEqual([3, 4]);
    expect(ids('opened>=48h')).toEqual([2, 3, 4]);
    expect(ids('opened<=48h')).toEqual([1, 2, 5]);
    const { params } = compileQuery(parseQuery('last:7d'), FIELDS, NOW);
    expect(params).toEqual(['2026-02-22T12:00:00.000Z']);
    // Beyond what a Date can hold, the window reaches back to year 0 instead of failing.
    expect(ids('last:99999999999d')).toEqual([1, 2, 3, 4, 5]);
    expect(ids('opened<9007199254740991s')).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps rows with a missing value under negation', () => {
    expect(ids('-service:api')).toEqual([2, 3, 4, 5]);
    expect(ids('-count>5')).toEqual([1, 3, 4]);
    expect(ids('-(service:api OR count>5)')).toEqual([3, 4]);
    expect(ids('--service:api')).toEqual([1]);
  });

  it('applies AND before OR, and parentheses before both', () => {
    expect(ids('kind:alert count>5 OR service:db')).toEqual([3, 5]);
    expect(ids('kind:alert (count>5 OR service:db)')).toEqual([3, 5]);
    expect(ids('service:db OR kind:alert count>2')).toEqual([1, 3, 5]);
    expect(ids('(service:db OR kind:alert) count>2')).toEqual([1, 5]);
  });

  it('names an unknown field, the list and the known fields, at the field', () => {
    const err = badQueryOf(() => compileQuery(parseQuery('service:api bogus:1'), FIELDS, NOW));
    expect(err.message).toBe(
      'query stopped making sense at character 12: unknown field "bogus"; a test query knows: count, duration, kind, message, service, tag, ts, data.*',
    );
    expect(err.details).toEqual({
      field: 'query',
      position: 12,
      known: ['count', 'duration', 'kind', 'message', 'service', 'tag', 'ts', 'data.*'],
    });
    // Names on Object.prototype are not fields.
    expect(badQueryOf(() => ids('constructor:x')).message).toContain('unknown field "constructor"');
    expect(badQueryOf(() => ids('last~x')).message).toContain('unknown field "last"');
  });

  it('reports a hand-built node without a position', () => {
    const err = badQueryOf(() => compileQuery(eq('bogus', '1'), FIELDS, NOW));
    expect(err.message).toMatch(/^query stopped making sense: unknown field "bogus"/);
    expect(err.details['position']).toBeUndefined();
  });

  it('parenthesises column expressions that are not plain names', () => {
    const fields: QueryFields = {
      list: 'test',
      fields: { either: { column: "service || '/' || kind", type: 'text' } },
      timeColumn: 'ts',
      textColumns: ["coalesce(message, '') || ' ' || coalesce(service, '')"],
    };
    expect(ids('either:api/alert', fields)).toEqual([1]);
    expect(ids('"DB api"', fields)).toEqual([1]);
    expect(ids('"api DB"', fields)).toEqual([]);
    expect(ids('"done API"', fields)).toEqual([2]);
  });
});
