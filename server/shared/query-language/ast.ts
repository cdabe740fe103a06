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
import { InvalidInputError } from '../errors.js';

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

export const UNIT_SECONDS: Readonly<Record<string, { unit: DurationUnit; seconds: number }>> = {
  s: { unit: 's', seconds: 1 },
  m: { unit: 'm', seconds: 60 },
  min: { unit: 'm', seconds: 60 },
  h: { unit: 'h', seconds: 3_600 },
  d: { unit: 'd', seconds: 86_400 },
  w: { unit: 'w', seconds: 604_800 },
};
export const UNIT_HINT = '(use s, m, h, d or w)';

export const FIELD_CHARS = /[A-Za-z_][A-Za-z0-9_.-]*/y;
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;
export const DATA_FIELD = /^data((?:\.[A-Za-z0-9_-]+)+)$/;

export function isSpace(ch: string): boolean {
  return /\s/.test(ch);
}
/** Where an unquoted word or value ends. */
export function endsBare(ch: string): boolean {
  return isSpace(ch) || ch === '(' || ch === ')' || ch === '"';
}

// Parsed leaves remember where they started, so that compileQuery can point at an unknown
// field. A WeakMap keeps positions out of the nodes themselves: nodes stay plain data that
// compare deeply equal to hand-built ones.
export const sourcePosition = new WeakMap<QueryNode, number>();

export function badQuery(
  position: number | undefined,
  why: string,
  extra: Record<string, unknown> = {},
) {
  const where = position === undefined ? '' : ` at character ${position}`;
  const details =
    position === undefined ? { field: 'query', ...extra } : { field: 'query', position, ...extra };
  return new InvalidInputError('bad_query', `query stopped making sense${where}: ${why}`, details);
}

export function quoteForMessage(text: string): string {
  return `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;
}
