// The query language of the `query` parameter (GET /v1/ledger, /v1/episodes, /v1/approvals):
// one parser, one printer and one SQLite compiler, so every list reads queries alike.
//
// Forms (spec "Query language"), terms separated by spaces mean AND:
//   field:value        equality; `*` in the value matches any run of characters
//   A OR B             alternatives (upper-case OR, a word of its own)
//   -term              negation of any term or group
//   field~"text"       case-insensitive "contains"; `?` matches one character, `*` any run
//   duration>5m        comparison of a duration (or number) field: <, >, <=, >=;
//                      units s, m (or min), h, d, w; a number field takes no unit (count>5)
//   opened<7d          opened more recently than 7 days ago (opened>7d: longer ago)
//   last:7d            within the last 7 days
//   data.key.sub:value match inside the JSON event data (keys of letters, digits, _ and -)
//
// Extensions beyond the spec, kept small on purpose:
//   ( … )              grouping. AND (juxtaposition) binds tighter than OR, so
//                      `a:1 b:2 OR c:3` is (a:1 AND b:2) OR c:3; parentheses change that.
//                      `()` is an empty group and matches everything, like an empty query.
//   timeout            a bare word (or "quoted phrase") with no field is a text match over
//                      the list's free-text columns (QueryFields.textColumns), any of them.
//   "…"                values and words may be quoted; inside quotes \" is a quotation mark
//                      and \\ a backslash; no other escapes exist. Unquoted values end at a
//                      space, "(" or ")" and take backslashes literally.
//
// Text comparisons fold case for ASCII letters only (SQLite's LIKE and NOCASE). Dates in
// `ts:2026-01-02` are prefixes of the stored UTC ISO-8601 text. Character positions in errors
// are 0-based offsets in UTF-16 code units, as JavaScript strings count them.
import { InvalidInputError } from './errors.js';

export type CompareOp = '<' | '>' | '<=' | '>=';
/** Units as stored in a node; `min` is read as `m`. */
export type DurationUnit = 's' | 'm' | 'h' | 'd' | 'w';

export type QueryNode =
  | { kind: 'and'; items: QueryNode[] }
  | { kind: 'or'; items: QueryNode[] }
  | { kind: 'not'; item: QueryNode }
  /** value may contain `*` wildcards; field as written, e.g. 'service' or 'data.http.status' */
  | { kind: 'eq'; field: string; value: string }
  /** `~` match: contains; `?` is one character and `*` any run */
  | { kind: 'text'; field: string; value: string }
  /**
   * A duration or number comparison. `seconds` is the value in seconds, or the plain number
   * when `unit` is null (`count>5`); `unit` is kept so that a number field can refuse `5m`
   * and a duration field can refuse a bare `5`, and so that the query prints as written.
   */
  | { kind: 'compare'; field: string; op: CompareOp; seconds: number; unit: DurationUnit | null }
  /** opened<7d: opened less than 7 days ago */
  | { kind: 'age'; field: 'opened'; op: CompareOp; seconds: number }
  | { kind: 'last'; seconds: number }
  /** a field-less word or quoted phrase: contains-match over the list's text columns */
  | { kind: 'word'; value: string }
  /** the empty query (or an empty group) */
  | { kind: 'all' };

export const MAX_QUERY_LENGTH = 2000;
export const MAX_QUERY_DEPTH = 32;

const UNIT_SECONDS: Readonly<Record<string, { unit: DurationUnit; seconds: number }>> = {
  s: { unit: 's', seconds: 1 },
  m: { unit: 'm', seconds: 60 },
  min: { unit: 'm', seconds: 60 },
  h: { unit: 'h', seconds: 3_600 },
  d: { unit: 'd', seconds: 86_400 },
  w: { unit: 'w', seconds: 604_800 },
};
const UNIT_HINT = '(use s, m, h, d or w)';

const FIELD_CHARS = /[A-Za-z_][A-Za-z0-9_.-]*/y;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;
const DATA_FIELD = /^data((?:\.[A-Za-z0-9_-]+)+)$/;

function isSpace(ch: string): boolean {
  return /\s/.test(ch);
}
/** Where an unquoted word or value ends. */
function endsBare(ch: string): boolean {
  return isSpace(ch) || ch === '(' || ch === ')' || ch === '"';
}

// Parsed leaves remember where they started, so that compileQuery can point at an unknown
// field. A WeakMap keeps positions out of the nodes themselves: nodes stay plain data that
// compare deeply equal to hand-built ones.
const sourcePosition = new WeakMap<QueryNode, number>();

function badQuery(position: number | undefined, why: string, extra: Record<string, unknown> = {}) {
  const where = position === undefined ? '' : ` at character ${position}`;
  const details =
    position === undefined ? { field: 'query', ...extra } : { field: 'query', position, ...extra };
  return new InvalidInputError('bad_query', `query stopped making sense${where}: ${why}`, details);
}

function quoteForMessage(text: string): string {
  return `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;
}

// ---------------------------------------------------------------------------------------
// Parsing: recursive descent over characters, so every error knows its exact offset.
//   query   := space* [or] space*
//   or      := and ("OR" and)*
//   and     := unary (space* unary)*
//   unary   := "-" unary | primary
//   primary := "(" [or] ")" | quoted | term
//   term    := field (":" value | "~" value | op duration) | "last:" duration | bareword

export function parseQuery(text: string): QueryNode {
  if (text.length > MAX_QUERY_LENGTH) {
    throw badQuery(MAX_QUERY_LENGTH, `the query is longer than ${MAX_QUERY_LENGTH} characters`);
  }
  return new QueryParser(text).parseWhole();
}

class QueryParser {
  private readonly text: string;
  private pos = 0;

  constructor(text: string) {
    this.text = text;
  }

  parseWhole(): QueryNode {
    this.skipSpace();
    if (this.atEnd()) return { kind: 'all' };
    const node = this.parseOr(0);
    // parseOr stops only at the end or at a ")" that no "(" opened.
    if (!this.atEnd()) throw badQuery(this.pos, 'this ")" closes no "("');
    return node;
  }

  private parseOr(depth: number): QueryNode {
    const items = [this.parseAnd(depth)];
    while (this.atOr()) {
      this.pos += 2;
      this.skipSpace();
      if (this.atEnd() || this.peek() === ')' || this.atOr()) {
        throw badQuery(this.pos, 'expected a term after "OR"');
      }
      items.push(this.parseAnd(depth));
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private parseAnd(depth: number): QueryNode {
    const items: QueryNode[] = [];
    for (;;) {
      this.skipSpace();
      if (this.atEnd() || this.peek() === ')' || this.atOr()) break;
      items.push(this.parseUnary(depth));
    }
    if (items.length === 0) {
      // The callers rule out the end and an empty group, so only these two remain.
      throw badQuery(
        this.pos,
        this.atOr() ? 'expected a term before "OR"' : 'this ")" closes no "("',
      );
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private parseUnary(depth: number): QueryNode {
    if (this.peek() !== '-') return this.parsePrimary(depth);
    const minusAt = this.pos;
    this.enterLevel(depth, minusAt);
    this.pos += 1;
    const next = this.peek();
    if (next === undefined || isSpace(next) || next === ')' || this.atOr()) {
      throw badQuery(this.pos, 'expected a term right after "-"');
    }
    return { kind: 'not', item: this.parseUnary(depth + 1) };
  }

  private parsePrimary(depth: number): QueryNode {
    if (this.peek() === '(') return this.parseGroup(depth);
    const start = this.pos;
    if (this.peek() === '"') {
      const node: QueryNode = { kind: 'word', value: this.readQuoted() };
      this.expectTermEnd();
      sourcePosition.set(node, start);
      return node;
    }
    const node = this.parseTerm();
    sourcePosition.set(node, start);
    return node;
  }

  private parseGroup(depth: number): QueryNode {
    const openAt = this.pos;
    this.enterLevel(depth, openAt);
    this.pos += 1;
    this.skipSpace();
    const empty = this.atEnd() || this.peek() === ')';
    const node: QueryNode = empty ? { kind: 'all' } : this.parseOr(depth + 1);
    this.skipSpace();
    if (this.atEnd()) {
      throw badQuery(this.pos, `the "(" at character ${openAt} is never closed`);
    }
    this.pos += 1; // the ")"; parseOr stops at nothing else
    return node;
  }

  private parseTerm(): QueryNode {
    const start = this.pos;
    FIELD_CHARS.lastIndex = start;
    const fieldMatch = FIELD_CHARS.exec(this.text);
    const opChar = fieldMatch ? this.text[start + fieldMatch[0].length] : undefined;
    if (!fieldMatch || opChar === undefined || !':~<>'.includes(opChar)) {
      return this.parseBareWord();
    }
    const field = fieldMatch[0];
    if (!FIELD_NAME.test(field)) {
      throw badQuery(
        start,
        `${quoteForMessage(field)} is not a field name (use letters, digits, _ and -, joined by dots)`,
      );
    }
    this.pos = start + field.length + 1;
    if (opChar === ':') {
      if (field === 'last') {
        return { kind: 'last', seconds: this.readDuration('last:', true).seconds };
      }
      return { kind: 'eq', field, value: this.readValue(`${field}:`) };
    }
    if (opChar === '~') return { kind: 'text', field, value: this.readValue(`${field}~`) };
    let op: CompareOp = opChar === '<' ? '<' : '>';
    if (this.peek() === '=') {
      this.pos += 1;
      op = op === '<' ? '<=' : '>=';
    }
    if (field === 'opened') {
      return { kind: 'age', field, op, seconds: this.readDuration(`opened${op}`, true).seconds };
    }
    const { seconds, unit } = this.readDuration(`${field}${op}`, false);
    return { kind: 'compare', field, op, seconds, unit };
  }

  private parseBareWord(): QueryNode {
    const value = this.readBare();
    this.expectTermEnd();
    return { kind: 'word', value };
  }

  private readValue(after: string): string {
    const ch = this.peek();
    if (ch === undefined || isSpace(ch) || ch === ')' || ch === '(') {
      const hint = ch === '(' ? ' (quote a value that contains "(" or ")")' : '';
      throw badQuery(this.pos, `expected a value after ${quoteForMessage(after)}${hint}`);
    }
    const value = ch === '"' ? this.readQuoted() : this.readBare();
    this.expectTermEnd();
    return value;
  }

  private readBare(): string {
    const start = this.pos;
    while (!this.atEnd() && !endsBare(this.text[this.pos]!)) this.pos += 1;
    return this.text.slice(start, this.pos);
  }

  private readQuoted(): string {
    const openAt = this.pos;
    this.pos += 1;
    let value = '';
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) {
        throw badQuery(this.pos, `unterminated quotation mark opened at character ${openAt}`);
      }
      if (ch === '"') {
        this.pos += 1;
        return value;
      }
      if (ch === '\\') {
        const escaped = this.text[this.pos + 1];
        if (escaped === undefined) {
          throw badQuery(
            this.text.length,
            `unterminated quotation mark opened at character ${openAt}`,
          );
        }
        if (escaped !== '"' && escaped !== '\\') {
          throw badQuery(
            this.pos,
            `unknown escape ${quoteForMessage(`\\${escaped}`)}: inside quotes write \\" for a quotation mark and \\\\ for a backslash`,
          );
        }
        value += escaped;
        this.pos += 2;
        continue;
      }
      value += ch;
      this.pos += 1;
    }
  }

  /** `<digits><unit>`: a whole number and, where required, one of the units. */
  private readDuration(
    after: string,
    unitRequired: boolean,
  ): { seconds: number; unit: DurationUnit | null } {
    const start = this.pos;
    while (/[0-9]/.test(this.peek() ?? '')) this.pos += 1;
    const digits = this.text.slice(start, this.pos);
    if (digits === '') {
      const example = unitRequired ? `${after}7d` : `${after}5m or ${after}5`;
      throw badQuery(
        start,
        `expected a number after ${quoteForMessage(after)}, such as ${example}`,
      );
    }
    if (this.peek() === '.' && /[0-9]/.test(this.text[this.pos + 1] ?? '')) {
      throw badQuery(start, 'expected a whole number (write 90m rather than 1.5h)');
    }
    const unitAt = this.pos;
    const unitText = this.readBare();
    let unit: DurationUnit | null = null;
    let factor = 1;
    if (unitText === '') {
      if (unitRequired) throw badQuery(unitAt, `expected a unit after "${digits}" ${UNIT_HINT}`);
    } else {
      const known = Object.hasOwn(UNIT_SECONDS, unitText) ? UNIT_SECONDS[unitText] : undefined;
      if (!known) {
        throw badQuery(
          unitAt,
          `unknown unit ${quoteForMessage(unitText)} in ${quoteForMessage(digits + unitText)} ${UNIT_HINT}`,
        );
      }
      unit = known.unit;
      factor = known.seconds;
    }
    const seconds = Number(digits) * factor;
    if (!Number.isSafeInteger(seconds)) throw badQuery(start, `the number ${digits} is too large`);
    this.expectTermEnd();
    return { seconds, unit };
  }

  /** A term ends at a space, a ")" or the end; `a:1(b)` or `a:"x"y` are glued and unclear. */
  private expectTermEnd(): void {
    const ch = this.peek();
    if (ch === undefined || isSpace(ch) || ch === ')') return;
    throw badQuery(
      this.pos,
      `unexpected ${quoteForMessage(ch)} right after the value (put a space before it, or quote the whole value)`,
    );
  }

  private enterLevel(depth: number, at: number): void {
    if (depth + 1 > MAX_QUERY_DEPTH) {
      throw badQuery(at, `groups and negations nest deeper than ${MAX_QUERY_DEPTH} levels`);
    }
  }

  /** OR is a keyword only in upper case and as a word of its own. */
  private atOr(): boolean {
    if (!this.text.startsWith('OR', this.pos)) return false;
    const after = this.text[this.pos + 2];
    return after === undefined || isSpace(after) || after === '(' || after === ')';
  }

  private skipSpace(): void {
    while (!this.atEnd() && isSpace(this.text[this.pos]!)) this.pos += 1;
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }
}

// ---------------------------------------------------------------------------------------
// Printing: the shortest faithful spelling. parseQuery(formatQuery(n)) deep-equals n for
// nodes as parseQuery makes them (and/or with two or more items). An and/or of one item
// prints as that item, an empty and as `()` (everything), an empty or as `-()` (nothing).

export function formatQuery(node: QueryNode): string {
  return node.kind === 'all' ? '' : formatNode(node);
}

function formatNode(node: QueryNode): string {
  switch (node.kind) {
    case 'all':
      return '()';
    case 'and':
    case 'or':
      return formatList(node.kind, node.items);
    case 'not':
      return `-${formatOperand(node.item, 'not')}`;
    case 'eq':
      return `${node.field}:${formatValue(node.value)}`;
    case 'text':
      return `${node.field}~${quote(node.value)}`;
    case 'compare':
      return `${node.field}${node.op}${formatAmount(node.seconds, node.unit)}`;
    case 'age':
      return `opened${node.op}${formatDuration(node.seconds)}`;
    case 'last':
      return `last:${formatDuration(node.seconds)}`;
    case 'word':
      return formatWord(node.value);
  }
}

function formatList(kind: 'and' | 'or', items: readonly QueryNode[]): string {
  if (items.length === 0) return kind === 'and' ? '()' : '-()';
  if (items.length === 1) return formatNode(items[0]!);
  return items.map((item) => formatOperand(item, kind)).join(kind === 'and' ? ' ' : ' OR ');
}

/** Parenthesise where the parser would otherwise read a different tree. */
function formatOperand(item: QueryNode, parent: 'and' | 'or' | 'not'): string {
  if (item.kind !== 'and' && item.kind !== 'or') return formatNode(item);
  if (item.items.length === 1) return formatOperand(item.items[0]!, parent);
  // Only an AND inside an OR goes without brackets: juxtaposition binds tighter.
  const bare = item.items.length === 0 || (parent === 'or' && item.kind === 'and');
  return bare ? formatNode(item) : `(${formatNode(item)})`;
}

function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** After `field:` an unquoted value runs to a space or bracket, so only those need quotes. */
function formatValue(value: string): string {
  return /^[^\s()"]+$/.test(value) ? value : quote(value);
}

/** A bare word must not read as a negation, a field term or the OR keyword. */
function formatWord(value: string): string {
  const plain = /^[^\s()"\-:~<>][^\s()":~<>]*$/.test(value) && value !== 'OR';
  return plain ? value : quote(value);
}

function formatAmount(seconds: number, unit: DurationUnit | null): string {
  if (unit === null) return String(seconds);
  const factor = UNIT_SECONDS[unit]!.seconds;
  return seconds % factor === 0 ? `${seconds / factor}${unit}` : formatDuration(seconds);
}

/** The largest unit up to days that divides exactly: 604800 prints as 7d, 90 as 90s. */
function formatDuration(seconds: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    const factor = UNIT_SECONDS[unit]!.seconds;
    if (seconds !== 0 && seconds % factor === 0) return `${seconds / factor}${unit}`;
  }
  return `${seconds}s`;
}

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
  const escaped = value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
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
function wildcardMatches(pattern: string, value: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${source}$`, 'i').test(value);
}
