import type { InvalidInputError } from '../errors.js';
import { wildcardMatch } from '../wildcard.js';
import {
  type QueryNode,
  UNIT_SECONDS,
  UNIT_HINT,
  DATA_FIELD,
  sourcePosition,
  badQuery,
  quoteForMessage,
} from './ast.js';

// ---------------------------------------------------------------------------------------
// Compiling to a SQLite WHERE expression. Values are always bound parameters; column SQL
// comes only from the QueryFields a store declares; JSON paths are built from characters
// checked against DATA_FIELD. A NULL column never matches a positive term, and a negated
// term is NOT IFNULL(…, 0), so that `-service:api` keeps the rows without a service.

export interface QueryFieldSpec {
  /** SQL expression, trusted (a constant from the store) */
  column: string;
  type: 'text' | 'enum' | 'integer' | 'time' | 'seconds';
  /** for enum: the allowed values; any other value is bad_query naming them */
  values?: readonly string[];
  /** the column holds a JSON array of strings; eq and ~ match if any element matches */
  multi?: 'json_array';
}

export interface QueryFields {
  /** the list's name, for messages, e.g. 'ledger' */
  list: string;
  fields: Readonly<Record<string, QueryFieldSpec>>;
  /** JSON column for data.<key>; absent: data.* is unknown */
  dataColumn?: string;
  /** ISO-8601 text column used by last: and opened */
  timeColumn: string;
  /** searched by a bare word; empty: bare words are bad_query */
  textColumns: readonly string[];
}

export interface CompiledQuery {
  sql: string;
  params: (string | number)[];
}

export function compileQuery(node: QueryNode, fields: QueryFields, nowMs: number): CompiledQuery {
  return new QueryCompiler(fields, nowMs).compile(node);
}

const LIKE_ESCAPE = `ESCAPE '\\'`;
/** Earlier instants print as "-000001-…" and would not sort as text with stored timestamps. */
const EARLIEST_ISO_MS = Date.parse('0000-01-01T00:00:00.000Z');

type EqNode = Extract<QueryNode, { kind: 'eq' }>;
type FieldNode = Extract<QueryNode, { field: string }>;

/** Escape LIKE's own wildcards in user text, then turn ours into LIKE's. */
function likePattern(value: string, oneCharWildcard: boolean): string {
  // A run of stars is one `%`: SQLite's LIKE then never tries the same split twice.
  const escaped = value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*+/g, '%');
  return oneCharWildcard ? escaped.replace(/\?/g, '_') : escaped;
}

/** Parenthesise a trusted column expression unless it is a plain (qualified) name. */
function sqlOperand(column: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(column)
    ? column
    : `(${column})`;
}

class QueryCompiler {
  private readonly spec: QueryFields;
  private readonly nowMs: number;
  private readonly params: (string | number)[] = [];

  constructor(spec: QueryFields, nowMs: number) {
    this.spec = spec;
    this.nowMs = nowMs;
  }

  compile(node: QueryNode): CompiledQuery {
    const sql = this.node(node);
    return { sql, params: this.params };
  }

  private node(node: QueryNode): string {
    switch (node.kind) {
      case 'all':
        return '1';
      case 'and':
        return node.items.length === 0
          ? '1'
          : `(${node.items.map((n) => this.node(n)).join(' AND ')})`;
      case 'or':
        return node.items.length === 0
          ? '0'
          : `(${node.items.map((n) => this.node(n)).join(' OR ')})`;
      case 'not':
        return `NOT IFNULL(${this.node(node.item)}, 0)`;
      case 'eq':
        return this.eq(node);
      case 'text':
        return this.text(node);
      case 'compare':
        return this.compare(node);
      case 'age':
        return this.age(node);
      case 'last':
        return `${sqlOperand(this.spec.timeColumn)} >= ${this.bind(this.cutoff(node.seconds))}`;
      case 'word':
        return this.word(node);
    }
  }

  private bind(value: string | number): '?' {
    this.params.push(value);
    return '?';
  }

  /** The instant `seconds` before now as ISO text; last:9999999999d reaches back to year 0. */
  private cutoff(seconds: number): string {
    return new Date(Math.max(this.nowMs - seconds * 1000, EARLIEST_ISO_MS)).toISOString();
  }

  // -- equality ----------------------------------------------------------------------

  private eq(node: EqNode): string {
    const data = this.dataPath(node);
    if (data !== null) return this.textEquals(this.dataText(data), node.value);
    const spec = this.field(node);
    switch (spec.type) {
      case 'integer':
        return `${sqlOperand(spec.column)} = ${this.bind(this.integerValue(node))}`;
      case 'seconds':
        return `${sqlOperand(spec.column)} = ${this.bind(this.durationValue(node))}`;
      case 'time':
        return this.eachElement(
          spec,
          (col) => `${col} LIKE ${this.bind(this.timePattern(node))} ${LIKE_ESCAPE}`,
        );
      case 'enum':
        if (spec.values) return this.enumEquals(node, spec, spec.values);
        return this.eachElement(spec, (col) => this.textEquals(col, node.value));
      case 'text':
        return this.eachElement(spec, (col) => this.textEquals(col, node.value));
    }
  }

  private textEquals(col: string, value: string): string {
    if (!value.includes('*')) return `${col} = ${this.bind(value)} COLLATE NOCASE`;
    return `${col} LIKE ${this.bind(likePattern(value, false))} ${LIKE_ESCAPE}`;
  }

  /** Enum values are checked here and bound in their declared spelling: `status:Open` works. */
  private enumEquals(node: EqNode, spec: QueryFieldSpec, allowed: readonly string[]): string {
    const matches = allowed.filter((v) => wildcardMatches(node.value, v));
    if (matches.length === 0) {
      throw this.error(
        node,
        `${quoteForMessage(node.value)} is not a ${node.field}; use one of: ${allowed.join(', ')}`,
        { allowed: [...allowed] },
      );
    }
    return this.eachElement(spec, (col) =>
      matches.length === 1
        ? `${col} = ${this.bind(matches[0]!)}`
        : `${col} IN (${matches.map((v) => this.bind(v)).join(', ')})`,
    );
  }

  private integerValue(node: EqNode): number {
    const n = /^-?[0-9]+$/.test(node.value) ? Number(node.value) : NaN;
    if (!Number.isSafeInteger(n)) {
      throw this.error(
        node,
        `${node.field} takes a whole number, not ${quoteForMessage(node.value)}`,
      );
    }
    return n;
  }

  private durationValue(node: EqNode): number {
    const match = /^([0-9]+)([a-z]+)$/.exec(node.value);
    const unit =
      match && Object.hasOwn(UNIT_SECONDS, match[2]!) ? UNIT_SECONDS[match[2]!] : undefined;
    const seconds = match && unit ? Number(match[1]) * unit.seconds : NaN;
    if (!Number.isSafeInteger(seconds)) {
      throw this.error(
        node,
        `${node.field} takes a duration such as 5m, not ${quoteForMessage(node.value)} ${UNIT_HINT}`,
      );
    }
    return seconds;
  }

  /** A date or the start of an ISO timestamp, matched as a prefix: ts:2026-01-02 is that day (UTC). */
  private timePattern(node: EqNode): string {
    if (!/^[0-9*][0-9TZtz:.*-]*$/.test(node.value)) {
      throw this.error(
        node,
        `${node.field} takes a date such as 2026-01-02 or the start of a timestamp such as 2026-01-02T10:30, not ${quoteForMessage(node.value)}`,
      );
    }
    return `${likePattern(node.value, false)}%`;
  }

  // -- text match, comparisons, time windows, bare words ------------------------------

  private text(node: Extract<QueryNode, { kind: 'text' }>): string {
    const data = this.dataPath(node);
    const contains = (col: string) =>
      `${col} LIKE ${this.bind(`%${likePattern(node.value, true)}%`)} ${LIKE_ESCAPE}`;
    if (data !== null) return contains(this.dataText(data));
    const spec = this.field(node);
    if (spec.type === 'integer' || spec.type === 'seconds') {
      const example =
        spec.type === 'integer' ? `${node.field}:5 or ${node.field}>5` : `${node.field}>5m`;
      throw this.error(
        node,
        `~ matches text, and ${node.field} is a ${spec.type === 'integer' ? 'number' : 'duration'}; write ${example}`,
      );
    }
    return this.eachElement(spec, contains);
  }

  private compare(node: Extract<QueryNode, { kind: 'compare' }>): string {
    const spec = this.dataPath(node) === null ? this.field(node) : undefined;
    if (!spec || (spec.type !== 'integer' && spec.type !== 'seconds')) {
      throw this.error(
        node,
        `${node.op} compares numbers and durations, and ${node.field} is neither`,
      );
    }
    if (spec.type === 'seconds' && node.unit === null) {
      throw this.error(
        node,
        `${node.field} is a duration and needs a unit: write ${node.field}${node.op}${node.seconds}m ${UNIT_HINT}`,
      );
    }
    if (spec.type === 'integer' && node.unit !== null) {
      throw this.error(node, `${node.field} is a number, not a duration: write it without a unit`);
    }
    return `${sqlOperand(spec.column)} ${node.op} ${this.bind(node.seconds)}`;
  }

  /** opened<7d: more recent than the cutoff, i.e. a later timestamp (ISO text sorts as time). */
  private age(node: Extract<QueryNode, { kind: 'age' }>): string {
    const flipped = { '<': '>', '>': '<', '<=': '>=', '>=': '<=' }[node.op];
    return `${sqlOperand(this.spec.timeColumn)} ${flipped} ${this.bind(this.cutoff(node.seconds))}`;
  }

  private word(node: Extract<QueryNode, { kind: 'word' }>): string {
    if (this.spec.textColumns.length === 0) {
      throw this.error(
        node,
        `a ${this.spec.list} query has no free-text search, so ${quoteForMessage(node.value)} needs a field; known fields: ${this.knownFields().join(', ')}`,
        { known: this.knownFields() },
      );
    }
    const pattern = `%${likePattern(node.value, true)}%`;
    const tests = this.spec.textColumns.map(
      (c) => `${sqlOperand(c)} LIKE ${this.bind(pattern)} ${LIKE_ESCAPE}`,
    );
    return `(${tests.join(' OR ')})`;
  }

  // -- fields ----------------------------------------------------------------------------

  /** Declared fields first: a store may declare a field whose name starts with "data.". */
  private field(node: FieldNode): QueryFieldSpec {
    const declared = Object.hasOwn(this.spec.fields, node.field)
      ? this.spec.fields[node.field]
      : undefined;
    if (declared) return declared;
    const known = this.knownFields();
    throw this.error(
      node,
      `unknown field ${quoteForMessage(node.field)}; a ${this.spec.list} query knows: ${known.join(', ')}`,
      { known },
    );
  }

  /** The JSON path for data.<key>…, or null when the field is not a data field. */
  private dataPath(node: FieldNode): string | null {
    if (Object.hasOwn(this.spec.fields, node.field)) return null;
    const match = DATA_FIELD.exec(node.field);
    if (!match || this.spec.dataColumn === undefined) return null;
    // Each key is quoted so that keys with "-" or leading digits stay keys; DATA_FIELD
    // admits only [A-Za-z0-9_-], so nothing here can close the quotes or the SQL string.
    const keys = match[1]!.slice(1).split('.');
    return `$${keys.map((k) => `."${k}"`).join('')}`;
  }

  /** The data value as text; JSON true/false/null print as those words, not as 1/0/NULL. */
  private dataText(path: string): string {
    const col = sqlOperand(this.spec.dataColumn!);
    return (
      `(CASE json_type(${col}, '${path}') WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ` +
      `WHEN 'null' THEN 'null' ELSE CAST(json_extract(${col}, '${path}') AS TEXT) END)`
    );
  }

  /** Apply a test to the column, or to any element of a JSON-array column. */
  private eachElement(spec: QueryFieldSpec, test: (col: string) => string): string {
    if (spec.multi !== 'json_array') return test(sqlOperand(spec.column));
    return `EXISTS (SELECT 1 FROM json_each(${spec.column}) WHERE ${test('value')})`;
  }

  private knownFields(): string[] {
    const names = Object.keys(this.spec.fields).sort();
    if (this.spec.dataColumn !== undefined) names.push('data.*');
    return names;
  }

  private error(
    node: QueryNode,
    why: string,
    extra: Record<string, unknown> = {},
  ): InvalidInputError {
    return badQuery(sourcePosition.get(node), why, extra);
  }
}

/** Does a `*` pattern match the whole of value, ignoring ASCII case (as SQLite's LIKE does)? */
const wildcardMatches = (pattern: string, value: string): boolean =>
  wildcardMatch(pattern, value, { ignoreCase: true });
