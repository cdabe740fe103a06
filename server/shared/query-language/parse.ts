import {
  type CompareOp,
  type DurationUnit,
  type QueryNode,
  MAX_QUERY_LENGTH,
  MAX_QUERY_DEPTH,
  UNIT_SECONDS,
  UNIT_HINT,
  FIELD_CHARS,
  FIELD_NAME,
  isSpace,
  endsBare,
  sourcePosition,
  badQuery,
  quoteForMessage,
} from './ast.js';

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
