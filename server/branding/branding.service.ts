// Branding: one document, replaced whole by PUT /v1/branding and read by the console on
// every load (so GET answers from memory, with a digest for the ETag). Logos arrive as data
// URIs; this file checks what they hold: the declared type, the bytes, the decoded size,
// and for SVG that nothing in it could run when the file is opened outside an <img>.
import { createHash } from 'node:crypto';
import { Value } from 'typebox/value';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { InvalidInputError, refuseIfCarried } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import {
  BrandingInput,
  DEFAULT_BRANDING,
  LOGO_MAX_BYTES,
  LOGO_SLOTS,
  LogoType,
  type Branding,
  type BrandingView,
  type Logos,
  type SupportLink,
} from './branding.schemas.js';
import { BRANDING_SET, type BrandingStore } from './branding.store.js';
import type { BrandingEvents } from './branding.events.js';

interface Deps {
  readonly store: BrandingStore;
  readonly ledger: DomainLedger<BrandingEvents>;
  readonly writer: Writer;
  /** Where branding is changed when a keychain home carries it to this install, else null. */
  readonly carriedBy?: () => string | null;
}

function invalid(field: string, message: string, details: Record<string, unknown> = {}): never {
  throw new InvalidInputError('invalid_input', message, { field, ...details });
}

const bytesText = (n: number): string => n.toLocaleString('en-GB');

// ───────────────────────────────── data URIs ─────────────────────────────────

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PARAMETER = /^[A-Za-z0-9!#$&^_.+-]+=[^;,]*$/;

/** What a logo's bytes must start with, for the binary types. */
const MAGIC: Record<Exclude<LogoType, 'image/svg+xml'>, (b: Buffer) => boolean> = {
  'image/png': (b) =>
    b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])),
  'image/jpeg': (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) =>
    b.length >= 12 &&
    b.toString('latin1', 0, 4) === 'RIFF' &&
    b.toString('latin1', 8, 12) === 'WEBP',
};

const TYPES: readonly string[] = Object.values(LogoType);
const isLogoType = (t: string): t is LogoType => TYPES.includes(t);

export interface CheckedLogo {
  readonly type: LogoType;
  /** Decoded size in bytes. */
  readonly bytes: number;
}

function tooLarge(field: string, bytes: number): never {
  return invalid(
    field,
    `${field} is ${bytesText(bytes)} bytes decoded; a logo may be at most ` +
      `${bytesText(LOGO_MAX_BYTES)} bytes (500 KB)`,
    { bytes, limit: LOGO_MAX_BYTES },
  );
}

function decodeBase64(field: string, payload: string): Buffer {
  if (payload.length === 0) invalid(field, `${field} holds no data`);
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) {
    invalid(field, `${field} is not valid base64 (no spaces or line breaks, padded with =)`);
  }
  // Measured before decoding: a huge logo is refused without allocating it.
  const pad = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const bytes = (payload.length / 4) * 3 - pad;
  if (bytes > LOGO_MAX_BYTES) tooLarge(field, bytes);
  return Buffer.from(payload, 'base64');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Numeric character references decoded, so `&#106;avascript:` is seen for what it is. */
const decodeReferences = (s: string): string =>
  s.replace(/&#(x[0-9a-f]+|[0-9]+);?/gi, (whole, code: string) => {
    const n = code[0] === 'x' || code[0] === 'X' ? parseInt(code.slice(1), 16) : Number(code);
    return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
  });

/** Things an SVG may not contain, each with the words of the refusal. */
const SVG_REFUSALS: readonly { test: (text: string, plain: string) => boolean; why: string }[] = [
  { test: (t) => /<([a-z0-9_.-]+:)?script/i.test(t), why: 'a <script> element' },
  { test: (t) => /<([a-z0-9_.-]+:)?foreignobject/i.test(t), why: 'a <foreignObject> element' },
  { test: (t) => /[\s"'/]on[a-z]+\s*=/i.test(t), why: 'an event attribute (on…=)' },
  { test: (_t, plain) => /javascript:/i.test(plain), why: 'a javascript: link' },
  { test: (t) => /<!entity/i.test(t), why: 'an entity declaration (<!ENTITY)' },
];

/** Check an SVG document's text; throws InvalidInputError naming `field`. */
export function checkSvg(field: string, text: string): void {
  const body = text.replace(/^\uFEFF/, '').trimStart();
  if (!body.startsWith('<') || !/<svg[\s>/]/i.test(body)) {
    invalid(field, `${field} is declared image/svg+xml but holds no <svg> element`);
  }
  // Browsers drop whitespace and control characters inside a URL scheme ("java\tscript:").
  const plain = decodeReferences(body).replace(/[\u0000-\u0020]+/g, '');
  for (const refusal of SVG_REFUSALS) {
    if (refusal.test(body, plain)) {
      invalid(field, `${field} is an SVG with ${refusal.why}; logos may not carry scripts`);
    }
  }
}

/**
 * Check one logo data URI: `data:<type>[;param=value…][;base64],<data>`. The type must be
 * one of LogoType, binary types must be base64 and start with their magic bytes, and the
 * decoded size must be at most LOGO_MAX_BYTES. Throws InvalidInputError naming `field`.
 */
export function checkLogo(field: string, uri: string): CheckedLogo {
  if (!/^data:/i.test(uri)) {
    invalid(field, `${field} is not a data URI (data:image/png;base64,…)`);
  }
  const comma = uri.indexOf(',');
  if (comma < 0) invalid(field, `${field} is not a data URI: no comma before the data`);
  const parts = uri.slice(5, comma).split(';');
  const type = (parts.shift() ?? '').trim().toLowerCase();
  const isBase64 = parts.at(-1)?.toLowerCase() === 'base64';
  if (isBase64) parts.pop();
  if (!isLogoType(type)) {
    // Echo the type only when it looks like one: messages are shown to people as they are.
    const shown = /^[a-z0-9.+-]{1,40}\/[a-z0-9.+-]{1,60}$/.test(type) ? type : null;
    invalid(
      field,
      `${field} ${shown === null ? 'has an unknown type' : `has type ${shown}`}; a logo is one of ${TYPES.join(', ')}`,
      shown === null ? {} : { type: shown },
    );
  }
  if (parts.some((p) => !PARAMETER.test(p))) {
    invalid(field, `${field} has a malformed data URI parameter`);
  }
  const payload = uri.slice(comma + 1);

  if (type !== LogoType.Svg) {
    if (!isBase64) invalid(field, `${field}: a ${type} logo must be base64 (;base64,)`);
    const bytes = decodeBase64(field, payload);
    if (!MAGIC[type](bytes)) {
      invalid(field, `${field} is declared ${type} but its bytes are not ${type}`, {
        type,
      });
    }
    return { type, bytes: bytes.length };
  }

  let svg: Buffer;
  if (isBase64) {
    svg = decodeBase64(field, payload);
  } else {
    if (payload.length === 0) invalid(field, `${field} holds no data`);
    if (payload.includes('#')) {
      invalid(field, `${field}: write # as %23 in a percent-encoded SVG (# ends a URI)`);
    }
    try {
      svg = Buffer.from(decodeURIComponent(payload), 'utf8');
    } catch {
      return invalid(field, `${field} is not valid percent-encoded UTF-8`);
    }
    if (svg.length > LOGO_MAX_BYTES) tooLarge(field, svg.length);
  }
  let text: string;
  try {
    text = utf8.decode(svg);
  } catch {
    return invalid(field, `${field} is declared image/svg+xml but is not UTF-8 text`);
  }
  checkSvg(field, text);
  return { type, bytes: svg.length };
}

// ───────────────────────────────── the document ─────────────────────────────────

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: { requiredProperties?: unknown; additionalProperties?: unknown };
  readonly message: string;
}

function fieldOfSchemaError(e: SchemaError): string {
  const path =
    e.instancePath === ''
      ? []
      : e.instancePath
          .slice(1)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const leaf = [e.params.requiredProperties, e.params.additionalProperties]
    .filter(Array.isArray)
    .map((a) => a[0] as unknown)
    .find((v) => typeof v === 'string');
  const all = leaf === undefined ? path : [...path, leaf];
  return all.length === 0 ? 'body' : all.join('.');
}

const CONTROL = /[\u0000-\u001f\u007f]/;

function checkText(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') invalid(field, `${field} is blank`);
  if (CONTROL.test(trimmed)) invalid(field, `${field} contains a control character`);
  return trimmed;
}

function checkUrl(field: string, value: string): string {
  if (/\s/.test(value)) invalid(field, `${field} contains white space`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid(field, `${field} is not a URL`);
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.hostname === '') invalid(field, `${field} has no host`);
  } else if (url.protocol === 'mailto:') {
    if (url.pathname === '') invalid(field, `${field} has no address`);
  } else {
    invalid(field, `${field} must be an http://, https:// or mailto: link`);
  }
  return value;
}

/**
 * Validate a PUT body (without `by`) and fill in the defaults of missing fields: the
 * document to record. Throws InvalidInputError with `field` set to the dotted path
 * (`logos.dark`, `support.2.url`), the form the HTTP layer gives schema failures.
 */
export function checkBranding(input: unknown): Branding {
  const first = Value.Errors(BrandingInput, input)[0] as SchemaError | undefined;
  if (first !== undefined) {
    const field = fieldOfSchemaError(first);
    const message =
      first.keyword === 'required'
        ? `${field} is required`
        : first.keyword === 'additionalProperties' || first.keyword === 'boolean'
          ? `${field} is not a known field`
          : `${field} ${first.message}`;
    invalid(field, message);
  }
  const given = input as BrandingInput;
  if (given.by !== undefined) invalid('by', 'by is not part of the branding document');

  const logos: { -readonly [K in keyof Logos]: string } = {};
  for (const slot of LOGO_SLOTS) {
    const uri = given.logos?.[slot];
    if (uri === undefined || uri === null) continue;
    checkLogo(`logos.${slot}`, uri);
    logos[slot] = uri;
  }
  const support: SupportLink[] = (given.support ?? []).map((link, i) => ({
    label: checkText(`support.${String(i)}.label`, link.label),
    url: checkUrl(`support.${String(i)}.url`, link.url),
  }));
  return {
    name: given.name === undefined ? DEFAULT_BRANDING.name : checkText('name', given.name),
    logos,
    theme: given.theme ?? DEFAULT_BRANDING.theme,
    accent: (given.accent ?? DEFAULT_BRANDING.accent).toLowerCase(),
    support,
  };
}

export const sha256Of = (value: unknown): string =>
  createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');

/** A stored document, with fields added since it was stored taking their defaults. */
const withDefaults = (document: Record<string, unknown>): Branding => ({
  ...DEFAULT_BRANDING,
  ...(document as Partial<Branding>),
});

export interface BrandingAnswer {
  readonly branding: BrandingView;
  /** SHA-256 of the canonical JSON of `branding` (document, set_by and set_at): the ETag. */
  readonly sha256: string;
}

export function createBrandingService(deps: Deps) {
  const { store, ledger, writer } = deps;
  function read(): BrandingAnswer {
    const row = store.get();
    const doc = row === null ? DEFAULT_BRANDING : withDefaults(row.document);
    const branding: BrandingView = {
      name: doc.name,
      logos: {
        light: doc.logos.light ?? null,
        dark: doc.logos.dark ?? null,
        mark: doc.logos.mark ?? null,
      },
      theme: doc.theme,
      accent: doc.accent,
      support: doc.support,
      set_by: row?.set_by ?? null,
      set_at: row?.set_at ?? null,
    };
    return Object.freeze({ branding, sha256: sha256Of(branding) });
  }

  let seen = store.changes();
  let cached = read();
  const current = (): BrandingAnswer => {
    if (store.changes() !== seen) {
      seen = store.changes();
      cached = read();
    }
    return cached;
  };

  return {
    /** The document in force and its SHA-256, as a keychain home carries it. */
    document: (): { doc: unknown; sha256: string } => {
      const row = store.get();
      const doc = row === null ? DEFAULT_BRANDING : withDefaults(row.document);
      return { doc, sha256: sha256Of(doc) };
    },
    /** Inside a writer job: record branding a keychain home carried here (checked as a PUT is). */
    applyCarried(input: unknown, actor: string): void {
      const branding = checkBranding(input);
      ledger.append({ type: BRANDING_SET, actor, data: { branding, sha256: sha256Of(branding) } });
    },
    /** GET /v1/branding: from memory, read again only after the projection changed. */
    get: current,
    /** PUT /v1/branding: replace the whole document; missing fields take their defaults. */
    async put(input: Omit<BrandingInput, 'by'>, actor: Actor): Promise<BrandingAnswer> {
      refuseIfCarried(deps.carriedBy?.() ?? null, 'branding', 'branding is');
      const branding = checkBranding(input);
      await writer.transact(() =>
        ledger.append({
          type: BRANDING_SET,
          actor: actor.name,
          data: {
            branding,
            sha256: sha256Of(branding),
            ...(actor.via !== undefined && { via: actor.via }),
          },
        }),
      );
      return current();
    },
  };
}
export type BrandingService = ReturnType<typeof createBrandingService>;
