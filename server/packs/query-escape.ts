// Values put into a connector's query language when a pack's call is filled. The values come
// from alerts (labels, service names), so whoever can send an alert chooses them: each is
// quoted for the place in the template where it goes, so it can never end its string and
// add to the query. The template itself is the pack's (signed) text and is trusted.
import { asText, type Escape } from './templates.js';

export type QueryLanguage = 'promql' | 'logql' | 'sql';

export type { Escape };

const LANGUAGE_OF_KIND: Readonly<Record<string, QueryLanguage>> = {
  prometheus: 'promql',
  loki: 'logql',
  postgresql: 'sql',
};

/** The query language a connector kind's operations take, or null when it takes none. */
export const queryLanguageOfKind = (kind: string): QueryLanguage | null =>
  Object.hasOwn(LANGUAGE_OF_KIND, kind) ? (LANGUAGE_OF_KIND[kind] ?? null) : null;

/** Where in the template a placeholder stands: outside any string, or in one of these quotes. */
interface Place {
  readonly quote: '"' | "'" | '`' | null;
  /** the string is a regular expression (`=~"…"`, `!~"…"`, LogQL `|~"…"`) */
  readonly regex: boolean;
}

function placeOf(before: string, escapes: boolean, regexOps: readonly string[]): Place {
  let quote: Place['quote'] = null;
  let opened = 0;
  for (let i = 0; i < before.length; i++) {
    const c = before[i];
    if (quote === null) {
      if (c === '"' || c === "'" || c === '`') {
        quote = c;
        opened = i;
      }
    } else if (c === '\\' && escapes && quote !== '`') i++;
    else if (c === quote) quote = null;
  }
  if (quote === null) return { quote, regex: false };
  const lead = before.slice(0, opened).trimEnd();
  return { quote, regex: regexOps.some((op) => lead.endsWith(op)) };
}

/** A bare value (outside any string): a number or a plain name such as `5m` or `job`. */
const BARE = /^[A-Za-z0-9_.:]+$/;
/** RE2 (Prometheus, Loki) metacharacters. */
const RE2_META = /[\\^$.*+?()[\]{}|]/g;

/** Go string escapes: backslash, the quote, and control characters. */
function goString(text: string, quote: '"' | "'"): string {
  let out = '';
  for (const ch of text) {
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch < ' ' || ch === '\u007f')
      out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out;
}

function promLike(regexOps: readonly string[]): Escape {
  return (value, before) => {
    const place = placeOf(before, true, regexOps);
    if (place.quote === null) {
      const text = asText(value);
      return BARE.test(text) ? text : `"${goString(text, '"')}"`;
    }
    const items = Array.isArray(value) ? value.map(asText) : [asText(value)];
    const text = place.regex
      ? items.map((t) => t.replace(RE2_META, (m) => `\\${m}`)).join('|')
      : items.join(', ');
    // A raw string has no escapes: a backquote could only end it, so it is left out.
    return place.quote === '`' ? text.replaceAll('`', '') : goString(text, place.quote);
  };
}

const sql: Escape = (value, before) => {
  const place = placeOf(before, false, []);
  const text = asText(value).replaceAll('\0', '');
  if (place.quote === null) {
    return typeof value === 'number' || BARE.test(text) ? text : `'${text.replaceAll("'", "''")}'`;
  }
  // Standard SQL strings ('…') and identifiers ("…") escape their quote by doubling it.
  return place.quote === '`'
    ? text.replaceAll('`', '``')
    : text.replaceAll(place.quote, place.quote.repeat(2));
};

const ESCAPERS: Readonly<Record<QueryLanguage, Escape>> = {
  promql: promLike(['=~', '!~']),
  logql: promLike(['=~', '!~', '|~']),
  sql,
};

export const escaperFor = (language: QueryLanguage): Escape => ESCAPERS[language];
