import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors.js';
import {
  compileQuery,
  formatQuery,
  parseQuery,
  type CompareOp,
  type DurationUnit,
  type QueryFields,
  type QueryNode,
} from './query-language.js';

const RUNS = { numRuns: 300 };

const UNIT_SECONDS: Record<DurationUnit, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
const ops = fc.constantFrom<CompareOp>('<', '>', '<=', '>=');
const units = fc.constantFrom<DurationUnit>('s', 'm', 'h', 'd', 'w');

/** Any text, including lone surrogates and the characters the grammar cares about. */
const anyText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({
    unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    maxLength: 8,
  }),
  fc.constantFrom('', 'OR', '-x', 'a:b', '*', '?', '"', '\\', '( )', ' ', 'x~y', '\u00a0'),
);

const fieldName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,6}(\.[A-Za-z0-9_-]{1,4}){0,2}$/);

const durationLeaf = (field: fc.Arbitrary<string>) =>
  fc
    .record({
      field,
      op: ops,
      amount: fc.nat({ max: 100_000 }),
      unit: fc.option(units, { nil: null }),
    })
    .map(({ field, op, amount, unit }): QueryNode => ({
      kind: 'compare',
      field,
      op,
      seconds: unit === null ? amount : amount * UNIT_SECONDS[unit],
      unit,
    }));

/** Leaves exactly as parseQuery makes them ("last:" and "opened<" are reserved spellings). */
const syntaxLeaf: fc.Arbitrary<QueryNode> = fc.oneof(
  fc.record({
    kind: fc.constant('eq' as const),
    field: fieldName.filter((f) => f !== 'last'),
    value: anyText,
  }),
  fc.record({ kind: fc.constant('text' as const), field: fieldName, value: anyText }),
  durationLeaf(fieldName.filter((f) => f !== 'opened')),
  fc.record({
    kind: fc.constant('age' as const),
    field: fc.constant('opened' as const),
    op: ops,
    seconds: fc.nat(),
  }),
  fc.record({ kind: fc.constant('last' as const), seconds: fc.nat() }),
  fc.record({ kind: fc.constant('word' as const), value: anyText }),
  fc.constant<QueryNode>({ kind: 'all' }),
);

/** Trees of and/or (two to four items) and not over the given leaves. */
function queryTree(leaf: fc.Arbitrary<QueryNode>): fc.Arbitrary<QueryNode> {
  return fc.letrec<{ node: QueryNode }>((tie) => ({
    node: fc.oneof(
      { maxDepth: 5, depthSize: 'small' },
      leaf,
      fc.record({
        kind: fc.constant('and' as const),
        items: fc.array(tie('node'), { minLength: 2, maxLength: 4 }),
      }),
      fc.record({
        kind: fc.constant('or' as const),
        items: fc.array(tie('node'), { minLength: 2, maxLength: 4 }),
      }),
      fc.record({ kind: fc.constant('not' as const), item: tie('node') }),
    ),
  })).node;
}

/** parseQuery's contract for any input: a node, or bad_query with a position inside the text. */
function parseOrBadQuery(text: string): QueryNode | null {
  try {
    return parseQuery(text);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    const { code, details } = err as InvalidInputError;
    expect(code).toBe('bad_query');
    expect(details['field']).toBe('query');
    const position = details['position'];
    expect(Number.isInteger(position)).toBe(true);
    expect(position).toBeGreaterThanOrEqual(0);
    expect(position).toBeLessThanOrEqual(text.length);
    return null;
  }
}

describe('query language properties', () => {
  it('formatQuery prints what parseQuery reads back as the same tree', () => {
    fc.assert(
      fc.property(queryTree(syntaxLeaf), (node) => {
        // The whole query `all` prints as "" and parses back as `all`, like any other node.
        expect(parseQuery(formatQuery(node))).toEqual(node);
      }),
      RUNS,
    );
  });

  const grammarTokens = fc.constantFrom(
    'service:',
    'api',
    'a:1',
    ' ',
    '  ',
    'OR',
    ' OR ',
    '(',
    ')',
    '-',
    '"',
    '\\',
    '\\"',
    ':',
    '~',
    '<',
    '>',
    '>=',
    '<=',
    '=',
    '5m',
    '7d',
    '1.5h',
    '9x',
    'min',
    'last:',
    'opened<',
    'duration>',
    'data.',
    'data.a.b',
    '..',
    '*',
    '?',
    'x',
    '\t',
    '\u00a0',
    '\ud800',
    '99999999999999999999',
  );
  const grammarSoup = fc.array(grammarTokens, { maxLength: 16 }).map((parts) => parts.join(''));

  it.each([
    ['fc.string', fc.string({ maxLength: 40 })],
    ['full unicode', fc.string({ unit: 'binary', maxLength: 40 })],
    [
      'UTF-16 code units',
      fc.string({
        unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
        maxLength: 40,
      }),
    ],
    ['grammar tokens', grammarSoup],
  ] as const)(
    'parseQuery on %s returns a node or throws bad_query at a position in the text',
    (_, texts) => {
      fc.assert(
        fc.property(texts, (text) => {
          const node = parseOrBadQuery(text);
          // Whatever parses also prints and reads back unchanged.
          if (node !== null) expect(parseQuery(formatQuery(node))).toEqual(node);
        }),
        RUNS,
      );
    },
  );

  it('any text over the length limit is bad_query, not a crash', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 50 }), (chunk) => {
        parseOrBadQuery(chunk.repeat(Math.ceil(2001 / chunk.length)));
      }),
      { numRuns: 50 },
    );
  });
});

// ---------------------------------------------------------------------------------------
// Compilation: generated queries over a declared field set must make SQL that SQLite runs,
// with one bound parameter per "?", and whose negation selects exactly the other rows.

const FIELDS: QueryFields = {
  list: 'test',
  fields: {
    service: { column: 'service', type: 'text' },
    kind: { column: 'kind', type: 'enum', values: ['alert', 'action', 'note'] },
    count: { column: 'count', type: 'integer' },
    duration: { column: 'duration', type: 'seconds' },
    ts: { column: 'ts', type: 'time' },
    tag: { column: 'tags', type: 'text', multi: 'json_array' },
    role: { column: 'roles', type: 'enum', values: ['admin', 'responder'], multi: 'json_array' },
  },
  dataColumn: 'data',
  timeColumn: 'ts',
  textColumns: ['message', 'service'],
};

const wildcarded = (values: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...values),
    fc.constantFrom(...values).map((v) => v.toUpperCase()),
    fc.constantFrom(...values).map((v) => `${v.slice(0, 2)}*`),
  );
const timePrefix = fc
  .date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  })
  .chain((d) => fc.integer({ min: 4, max: 24 }).map((n) => d.toISOString().slice(0, n)))
  .chain((p) => fc.constantFrom(p, `${p}*`));
const duration = fc.tuple(fc.nat({ max: 1000 }), units).map(([n, u]) => `${n}${u}`);
const dataField = fc.constantFrom(
  'data.a',
  'data.http.status',
  'data.user-id',
  'data.0.x',
  'data.ok',
);

/** Leaves that the FIELDS above accept: each field with values of its type. */
const validLeaf: fc.Arbitrary<QueryNode> = fc.oneof(
  fc.record({
    kind: fc.constant('eq' as const),
    field: fc.constantFrom('service', 'tag'),
    value: anyText,
  }),
  fc.record({
    kind: fc.constant('eq' as const),
    field: fc.constant('kind'),
    value: wildcarded(['alert', 'action', 'note']),
  }),
  fc.record({
    kind: fc.constant('eq' as const),
    field: fc.constant('role'),
    value: wildcarded(['admin', 'responder']),
  }),
  fc.record({
    kind: fc.constant('eq' as const),
    field: fc.constant('count'),
    value: fc.integer().map(String),
  }),
  fc.record({ kind: fc.constant('eq' as const), field: fc.constant('duration'), value: duration }),
  fc.record({ kind: fc.constant('eq' as const), field: fc.constant('ts'), value: timePrefix }),
  fc.record({ kind: fc.constant('eq' as const), field: dataField, value: anyText }),
  fc.record({
    kind: fc.constant('text' as const),
    field: fc.oneof(fc.constantFrom('service', 'kind', 'ts', 'tag', 'role'), dataField),
    value: anyText,
  }),
  fc
    .record({ field: fc.constant('count'), op: ops, amount: fc.nat({ max: 1000 }) })
    .map(({ field, op, amount }): QueryNode => ({
      kind: 'compare',
      field,
      op,
      seconds: amount,
      unit: null,
    })),
  fc
    .record({ op: ops, amount: fc.nat({ max: 1000 }), unit: units })
    .map(({ op, amount, unit }): QueryNode => ({
      kind: 'compare',
      field: 'duration',
      op,
      seconds: amount * UNIT_SECONDS[unit],
      unit,
    })),
  fc.record({
    kind: fc.constant('age' as const),
    field: fc.constant('opened' as const),
    op: ops,
    seconds: fc.oneof(fc.nat({ max: 10 ** 9 }), fc.maxSafeNat()),
  }),
  fc.record({
    kind: fc.constant('last' as const),
    seconds: fc.oneof(fc.nat({ max: 10 ** 9 }), fc.maxSafeNat()),
  }),
  fc.record({ kind: fc.constant('word' as const), value: anyText }),
  fc.constant<QueryNode>({ kind: 'all' }),
);

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

describe('compileQuery properties', () => {
  let db: Database.Database;
  let total = 0;

  beforeAll(() => {
    db = new Database(':memory:');
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, service TEXT, kind TEXT, count INTEGER, duration INTEGER,
      ts TEXT NOT NULL, tags TEXT, roles TEXT, data TEXT, message TEXT)`);
    const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run(
      1,
      'api',
      'alert',
      3,
      300,
      '2026-03-01T10:00:00.000Z',
      '["prod"]',
      '["admin"]',
      '{"a":"x","ok":true}',
      'Timeout',
    );
    insert.run(
      2,
      'API_2',
      'action',
      -4,
      86400,
      '2026-02-01T00:00:00.000Z',
      '[]',
      '[]',
      '{"http":{"status":503}}',
      '50% done',
    );
    insert.run(3, null, 'note', null, null, '2025-12-31T23:59:59.999Z', null, null, null, null);
    insert.run(
      4,
      'db*',
      'alert',
      0,
      0,
      '2026-03-01T11:59:59.000Z',
      '["a","b*"]',
      '["responder","admin"]',
      '{"user-id":"u_1","0":{"x":null}}',
      'x?y "q"',
    );
    total = 4;
  });
  afterAll(() => db.close());

  function count(node: QueryNode): number {
    const { sql, params } = compileQuery(node, FIELDS, NOW);
    expect(sql.split('?').length - 1).toBe(params.length);
    const row = db.prepare(`SELECT count(*) AS n FROM t WHERE ${sql}`).get(...params) as {
      n: number;
    };
    return row.n;
  }

  it('compiles every valid query to SQL that runs, a parameter per "?", and a negation that selects the rest', () => {
    fc.assert(
      fc.property(queryTree(validLeaf), (node) => {
        expect(count(node) + count({ kind: 'not', item: node })).toBe(total);
      }),
      RUNS,
    );
  });

  it('compiles what the printed query parses to the same SQL', () => {
    fc.assert(
      fc.property(queryTree(validLeaf), (node) => {
        expect(compileQuery(parseQuery(formatQuery(node)), FIELDS, NOW)).toEqual(
          compileQuery(node, FIELDS, NOW),
        );
      }),
      RUNS,
    );
  });

  it('AND and OR select the intersection and union of their items', () => {
    fc.assert(
      fc.property(queryTree(validLeaf), queryTree(validLeaf), (a, b) => {
        const ids = (node: QueryNode) => {
          const { sql, params } = compileQuery(node, FIELDS, NOW);
          const rows = db.prepare(`SELECT id FROM t WHERE ${sql}`).all(...params) as {
            id: number;
          }[];
          return new Set(rows.map((r) => r.id));
        };
        const [inA, inB] = [ids(a), ids(b)];
        const both = [...inA].filter((id) => inB.has(id)).sort();
        const either = [...new Set([...inA, ...inB])].sort();
        expect([...ids({ kind: 'and', items: [a, b] })].sort()).toEqual(both);
        expect([...ids({ kind: 'or', items: [a, b] })].sort()).toEqual(either);
      }),
      { numRuns: 150 },
    );
  });
});
