// JSON for signed documents, read strictly: signatures cover the exact bytes, so bytes that
// two parsers could read differently are refused instead of guessed at. No byte-order mark,
// no duplicate keys (JSON.parse keeps the last, another reader the first), nothing after the
// value but whitespace, and a size and depth bound.

export class StrictJsonError extends Error {}

const MAX_DEPTH = 32;

/** Parses `text` as one JSON value, or throws StrictJsonError saying what was wrong. */
export function parseStrictJson(text: string, maxBytes: number): unknown {
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new StrictJsonError(`larger than ${String(maxBytes)} bytes`);
  }
  if (text.charCodeAt(0) === 0xfeff) throw new StrictJsonError('starts with a byte-order mark');
  const end = scanValue(text, skipSpace(text, 0), 0);
  if (skipSpace(text, end) !== text.length) {
    throw new StrictJsonError(`trailing bytes after the JSON value at offset ${String(end)}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StrictJsonError((err as Error).message);
  }
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && ' \t\n\r'.includes(s.charAt(i))) i++;
  return i;
}

/** Scans one value from `i`, returns the offset after it; objects are checked for duplicates. */
function scanValue(s: string, i: number, depth: number): number {
  if (depth > MAX_DEPTH) throw new StrictJsonError(`nested deeper than ${String(MAX_DEPTH)}`);
  const c = s.charAt(i);
  if (c === '{') return scanObject(s, i, depth);
  if (c === '[') return scanArray(s, i, depth);
  if (c === '"') return scanString(s, i);
  const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
    s.slice(i, i + 400),
  );
  if (m === null) throw new StrictJsonError(`not JSON at offset ${String(i)}`);
  return i + m[0].length;
}

function scanObject(s: string, i: number, depth: number): number {
  const seen = new Set<string>();
  i = skipSpace(s, i + 1);
  if (s.charAt(i) === '}') return i + 1;
  for (;;) {
    if (s.charAt(i) !== '"') throw new StrictJsonError(`expected a key at offset ${String(i)}`);
    const keyEnd = scanString(s, i);
    const key = JSON.parse(s.slice(i, keyEnd)) as string;
    if (seen.has(key)) throw new StrictJsonError(`duplicate key "${key}"`);
    seen.add(key);
    i = skipSpace(s, keyEnd);
    if (s.charAt(i) !== ':') throw new StrictJsonError(`expected ':' at offset ${String(i)}`);
    i = skipSpace(s, scanValue(s, skipSpace(s, i + 1), depth + 1));
    if (s.charAt(i) === '}') return i + 1;
    if (s.charAt(i) !== ',')
      throw new StrictJsonError(`expected ',' or '}' at offset ${String(i)}`);
    i = skipSpace(s, i + 1);
  }
}

function scanArray(s: string, i: number, depth: number): number {
  i = skipSpace(s, i + 1);
  if (s.charAt(i) === ']') return i + 1;
  for (;;) {
    i = skipSpace(s, scanValue(s, i, depth + 1));
    if (s.charAt(i) === ']') return i + 1;
    if (s.charAt(i) !== ',')
      throw new StrictJsonError(`expected ',' or ']' at offset ${String(i)}`);
    i = skipSpace(s, i + 1);
  }
}

function scanString(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charAt(j);
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
  }
  throw new StrictJsonError(`unterminated string at offset ${String(i)}`);
}
