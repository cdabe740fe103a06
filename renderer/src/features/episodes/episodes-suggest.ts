// Query-bar suggestions (console.md C.3, Kibana's lessons): field names from
// GET /v1/search/fields, values from the facet counts already loaded for the current scope (or
// a field's enumerated values), substring matched, at most 10. Nothing here calls the server.
import type { SearchField } from '../../../../server/search/search.schemas.js';

export type { SearchField };

export interface Suggestion {
  /** what the option shows, e.g. "payments (41)" */
  label: string;
  /** the query text with the word at the caret replaced */
  text: string;
  /** where the caret goes after */
  caret: number;
}

export const MAX_SUGGESTIONS = 10;

/** The word at the caret: from the last space (or parenthesis) before it to the caret. */
function wordAt(text: string, caret: number): { start: number; word: string } {
  let start = caret;
  while (start > 0 && !/[\s()]/.test(text[start - 1]!)) start -= 1;
  return { start, word: text.slice(start, caret) };
}

const quoted = (value: string): string =>
  /[\s()"]/.test(value) ? `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"` : value;

export function suggest(
  text: string,
  caret: number,
  fields: readonly SearchField[],
  facets: Readonly<Record<string, Readonly<Record<string, number>>>>,
): Suggestion[] {
  const { start, word } = wordAt(text, caret);
  if (word === '' || word === '-') return [];
  const negation = word.startsWith('-') ? '-' : '';
  const bare = word.slice(negation.length);
  const before = text.slice(0, start);
  const after = text.slice(caret);
  const replace = (insert: string): Pick<Suggestion, 'text' | 'caret'> => ({
    text: before + insert + after,
    caret: before.length + insert.length,
  });
  const colon = bare.indexOf(':');
  if (colon < 0) {
    const part = bare.toLowerCase();
    return fields
      .filter((f) => f.name.toLowerCase().includes(part) && f.name.toLowerCase() !== part)
      .slice(0, MAX_SUGGESTIONS)
      .map((f) => ({ label: `${f.name}:`, ...replace(`${negation}${f.name}:`) }));
  }
  const field = bare.slice(0, colon);
  const part = bare
    .slice(colon + 1)
    .replace(/^"/, '')
    .toLowerCase();
  const counted = facets[field];
  const values: [string, number | null][] =
    counted !== undefined
      ? Object.entries(counted)
      : (fields.find((f) => f.name === field)?.values ?? []).map((v) => [v, null]);
  return values
    .filter(([v]) => v.toLowerCase().includes(part) && v.toLowerCase() !== part)
    .slice(0, MAX_SUGGESTIONS)
    .map(([v, n]) => ({
      label: n === null ? v : `${v} (${n.toLocaleString('en')})`,
      // A space after a value: the next term follows.
      ...replace(`${negation}${field}:${quoted(v)} `),
    }));
}
