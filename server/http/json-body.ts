// JSON bodies are read one way only. Parsers disagree on duplicate object keys (first wins,
// last wins, error) and on numbers beyond a double (Infinity, error, big number), so a body
// holding either could mean one thing to a sender's proxy and another to us: both are a 400
// naming the place. One linear pass over the text finds them before the native parser
// runs; anything malformed is left to that parser, which says what is wrong.
import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '../shared/errors.js';

export interface JsonAmbiguity {
  /** `body.alerts[3].labels` */
  readonly path: string;
  /** `duplicate key "service"`, `number 1e400 is out of range` */
  readonly why: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A frame of the container stack: an object's keys so far, or an array's next index. */
interface Frame {
  readonly kind: 'body' | 'object' | 'array';
  /** an object's keys so far */
  readonly keys: Set<string> | null;
  /** the key or index under which this container sits in its parent */
  readonly at: string | number | null;
  index: number;
  /** the object's key whose value comes next */
  key: string | null;
}

function pathOf(stack: readonly Frame[], last: string | number | null): string {
  let path = 'body';
  const parts = [...stack.slice(1).map((f) => f.at), last];
  for (const p of parts) {
    if (p === null) continue;
    if (typeof p === 'number') path += `[${String(p)}]`;
    else path += IDENT.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  }
  return path;
}

/** The end of the string whose opening quote is at `start` (index of its closing quote), or -1. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return -1;
    let slashes = 0;
    for (let j = q - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return q;
    i = q + 1;
  }
}

const isNumberChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

/**
 * The first duplicate key or overflowing number in `text`, or null when there is none (also
 * when the text is not valid JSON: the parser reports that).
 */
export function ambiguityOf(text: string): JsonAmbiguity | null {
  // The root frame stands for the body itself.
  const stack: Frame[] = [{ kind: 'body', keys: null, at: null, index: 0, key: null }];
  const here = (f: Frame): string | number | null =>
    f.kind === 'object' ? f.key : f.kind === 'array' ? f.index : null;
  const n = text.length;
  let i = 0;
  // Whether the next string in an object is a key (after `{` or `,`) rather than a value.
  let expectKey = false;
  while (i < n) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1] as Frame;
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return null;
      if (expectKey && top.keys !== null) {
        const raw = text.slice(i + 1, end);
        let key = raw;
        if (raw.includes('\\')) {
          try {
            key = JSON.parse(text.slice(i, end + 1)) as string;
          } catch {
            return null;
          }
        }
        if (top.keys.has(key))
          return { path: pathOf(stack, null), why: `duplicate key ${JSON.stringify(key)}` };
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      // `{` or `[`: the new container sits under the current key or index.
      const object = c === 0x7b;
      stack.push({
        kind: object ? 'object' : 'array',
        keys: object ? new Set() : null,
        at: here(top),
        index: 0,
        key: null,
      });
      expectKey = object;
      i++;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      if (stack.length > 1) stack.pop();
      expectKey = false;
      i++;
      continue;
    }
    if (c === 0x2c) {
      // `,`: the next key of an object, or the next element of an array.
      if (top.kind === 'object') expectKey = true;
      else top.index++;
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      let exponent = false;
      while (j < n && isNumberChar(text.charCodeAt(j))) {
        const d = text.charCodeAt(j);
        if (d === 0x65 || d === 0x45) exponent = true;
        j++;
      }
      // A double holds up to ~1.8e308: only a long mantissa or an exponent can overflow.
      if ((exponent || j - i > 300) && !Number.isFinite(Number(text.slice(i, j)))) {
        return {
          path: pathOf(stack, here(top)),
          why: `number ${text.slice(i, Math.min(j, i + 40))} is out of range`,
        };
      }
      i = j;
      continue;
    }
    i++;
  }
  return null;
}

/** The 400 for an ambiguous body: `field` is the path, the message says what was found. */
function ambiguityError(a: JsonAmbiguity): InvalidInputError {
  return new InvalidInputError('invalid_json', `${a.path}: ${a.why}`, { field: a.path });
}

/**
 * Replace `application/json` (and any other `types`) parsing on `app` with Fastify's own
 * parser (prototype-poisoning guard on) behind the ambiguity check; `decode` turns the raw
 * bytes into text (strict UTF-8 for webhooks) and may refuse them.
 */
export function useStrictJson(
  app: FastifyInstance,
  options: {
    readonly types?: readonly string[];
    readonly bodyLimit?: number;
    readonly decode?: (body: Buffer) => string;
  } = {},
): void {
  const types = [...(options.types ?? ['application/json'])];
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const decode = options.decode ?? ((b: Buffer) => b.toString('utf8'));
  app.removeContentTypeParser(types);
  app.addContentTypeParser(
    types,
    { parseAs: 'buffer', ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }) },
    (req, body: Buffer, done) => {
      let text: string;
      try {
        text = decode(body);
      } catch (err) {
        done(err as Error, undefined);
        return;
      }
      const found = ambiguityOf(text);
      if (found !== null) {
        done(ambiguityError(found), undefined);
        return;
      }
      void parseJson(req, text, done);
    },
  );
}
