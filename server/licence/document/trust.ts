// Opening a signed document: which keys may sign it and whether they did (licence.md §3.2–3.3).
// Roots (compiled into the build) sign only key statements; key statements name the online
// keys that sign licences, confirmations, revocation lists and trial codes. A document is
// accepted on at least one good signature from a trusted, unrevoked key allowed its usage; a
// bad signature from a key we know rejects the whole document, unknown kids are ignored.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import {
  MAX_ENVELOPE_BYTES,
  MAX_PAYLOAD_BYTES,
  algOf,
  kidOf,
  signingInput,
  verifyBytes,
  type Envelope,
  type SignatureAlg,
} from './envelope.js';
import { StrictJsonError, parseStrictJson } from './strict-json.js';

export const KEY_STATEMENT_FORMAT = 'svc-key/1';
export type KeyUsage = 'licence' | 'confirm' | 'revocations' | 'trial';

/** A root key compiled into the build. */
export interface TrustedRoot {
  readonly name: string;
  readonly kid: string;
  readonly alg: SignatureAlg;
  readonly key: KeyObject;
}

/** An online signing key, as a root certified it. */
export interface KeyStatement {
  readonly kid: string;
  readonly alg: SignatureAlg;
  readonly usage: readonly KeyUsage[];
  readonly not_before: string;
  readonly not_after: string;
  readonly serial: number;
  readonly key: KeyObject;
  /** the root kids whose signatures on the statement verified */
  readonly certified_by: readonly string[];
}

/** Why a document was refused: the check that failed, named as the API reports it. */
export type DocumentCheck =
  | 'format'
  | 'format_version'
  | 'key_statement'
  | 'unknown_key'
  | 'signature'
  | 'revoked_key'
  | 'fips'
  | 'payload';

export type Opened =
  | {
      readonly ok: true;
      readonly envelope: Envelope;
      readonly payload: unknown;
      /** the exact payload bytes, for digests */
      readonly payloadBytes: Buffer;
      readonly signedBy: readonly { readonly kid: string; readonly alg: SignatureAlg }[];
      readonly statements: readonly KeyStatement[];
    }
  | { readonly ok: false; readonly check: DocumentCheck; readonly detail: string };

export interface TrustContext {
  readonly roots: readonly TrustedRoot[];
  /** kids revoked by the revocation list in force */
  readonly revokedKids: ReadonlySet<string>;
  /** SVC_FIPS=1: only ES256 signatures count */
  readonly fips: boolean;
}

const AlgSchema = Type.Union([Type.Literal('Ed25519'), Type.Literal('ES256')]);
const SignatureSchema = Type.Object(
  {
    alg: AlgSchema,
    kid: Type.String({ pattern: '^[0-9a-f]{16}$' }),
    sig: Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 200 }),
  },
  { additionalProperties: false },
);
const EnvelopeShape = Type.Object(
  {
    format: Type.String({ maxLength: 64 }),
    payload: Type.String({ pattern: '^[A-Za-z0-9_-]*$' }),
    signatures: Type.Array(SignatureSchema, { minItems: 1, maxItems: 8 }),
    keys: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 8 })),
  },
  { additionalProperties: false },
);
const StatementPayload = Type.Object({
  kid: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  alg: AlgSchema,
  spki: Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 400 }),
  usage: Type.Array(
    Type.Union([
      Type.Literal('licence'),
      Type.Literal('confirm'),
      Type.Literal('revocations'),
      Type.Literal('trial'),
    ]),
    { maxItems: 8 },
  ),
  not_before: Type.String({ format: 'date-time' }),
  not_after: Type.String({ format: 'date-time' }),
  serial: Type.Integer({ minimum: 1 }),
});
type StatementPayload = Static<typeof StatementPayload>;

const fail = (check: DocumentCheck, detail: string): Opened => ({ ok: false, check, detail });

/** The envelope's shape from text or an already parsed object; a string saying why not. */
export function readEnvelope(input: unknown): Envelope | string {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = parseStrictJson(input.replace(/\s+$/, ''), MAX_ENVELOPE_BYTES);
    } catch (err) {
      return err instanceof StrictJsonError ? `the envelope: ${err.message}` : String(err);
    }
  } else if (JSON.stringify(input ?? null).length > MAX_ENVELOPE_BYTES) {
    return `the envelope is larger than ${String(MAX_ENVELOPE_BYTES)} bytes`;
  }
  if (!Value.Check(EnvelopeShape, value)) {
    const first = Value.Errors(EnvelopeShape, value)[0];
    return `the envelope: ${first === undefined ? 'not an envelope' : `${first.instancePath || '/'} ${first.message}`}`;
  }
  return value as Envelope;
}

/** The payload bytes and their JSON, read strictly; a string saying why not. */
function readPayload(env: Envelope): { bytes: Buffer; value: unknown } | string {
  const bytes = Buffer.from(env.payload, 'base64url');
  if (bytes.length > MAX_PAYLOAD_BYTES) {
    return `the payload is larger than ${String(MAX_PAYLOAD_BYTES)} bytes`;
  }
  if (bytes.toString('base64url') !== env.payload) return 'the payload is not canonical base64url';
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return 'the payload is not UTF-8';
  try {
    return { bytes, value: parseStrictJson(text, MAX_PAYLOAD_BYTES) };
  } catch (err) {
    return `the payload: ${(err as Error).message}`;
  }
}

/**
 * The key statements of an envelope that a trusted root certified; a refusal when a statement
 * carries a bad signature from a root we know (C2SP: a known key's bad signature is never
 * outvoted by a good one).
 */
export function certifiedStatements(
  raw: readonly unknown[],
  ctx: TrustContext,
): { ok: true; statements: KeyStatement[] } | { ok: false; detail: string } {
  const statements: KeyStatement[] = [];
  for (const [i, item] of raw.entries()) {
    const env = readEnvelope(item);
    if (typeof env === 'string') return { ok: false, detail: `keys[${String(i)}]: ${env}` };
    if (env.format !== KEY_STATEMENT_FORMAT) {
      return {
        ok: false,
        detail: `keys[${String(i)}] is a ${env.format}, not a ${KEY_STATEMENT_FORMAT}`,
      };
    }
    const payload = readPayload(env);
    if (typeof payload === 'string') return { ok: false, detail: `keys[${String(i)}]: ${payload}` };
    const input = signingInput(env.format, payload.bytes);
    const certifiedBy: string[] = [];
    for (const s of env.signatures) {
      const root = ctx.roots.find((r) => r.kid === s.kid && r.alg === s.alg);
      if (root === undefined) continue;
      if (!verifyBytes(s.alg, root.key, input, s.sig)) {
        return {
          ok: false,
          detail: `keys[${String(i)}]: root ${root.name} (${root.kid}) signature does not verify`,
        };
      }
      if (!ctx.fips || s.alg === 'ES256') certifiedBy.push(root.kid);
    }
    if (certifiedBy.length === 0) continue; // not ours: ignored like any unknown kid
    if (!Value.Check(StatementPayload, payload.value)) {
      return { ok: false, detail: `keys[${String(i)}]: the statement's fields are not valid` };
    }
    const st: StatementPayload = payload.value;
    let key: KeyObject;
    try {
      key = createPublicKey({
        key: Buffer.from(st.spki, 'base64url'),
        format: 'der',
        type: 'spki',
      });
    } catch {
      return { ok: false, detail: `keys[${String(i)}]: spki is not a public key` };
    }
    if (algOf(key) !== st.alg || kidOf(key) !== st.kid) {
      return { ok: false, detail: `keys[${String(i)}]: kid or alg does not match its spki` };
    }
    statements.push({ ...st, key, certified_by: certifiedBy });
  }
  return { ok: true, statements };
}

export interface OpenOptions {
  /** the document format expected, e.g. svc-licence/1 */
  readonly format: string;
  readonly usage: KeyUsage;
  /** statements learnt elsewhere (e.g. the licence's), used beside the envelope's own */
  readonly knownStatements?: readonly KeyStatement[];
}

/** Verifies an envelope of `opts.format` and returns its payload, or the failed check. */
export function openEnvelope(input: unknown, opts: OpenOptions, ctx: TrustContext): Opened {
  const env = readEnvelope(input);
  if (typeof env === 'string') return fail('format', env);
  if (env.format !== opts.format) {
    const family = opts.format.split('/')[0] ?? opts.format;
    return env.format.startsWith(`${family}/`)
      ? fail(
          'format_version',
          `${env.format} is newer than this version reads (${opts.format}); upgrade the service`,
        )
      : fail('format', `a ${env.format} document, not a ${opts.format}`);
  }
  const payload = readPayload(env);
  if (typeof payload === 'string') return fail('format', payload);
  const certified = certifiedStatements(env.keys ?? [], ctx);
  if (!certified.ok) return fail('key_statement', certified.detail);
  const statements = [...certified.statements, ...(opts.knownStatements ?? [])];
  const issuedAt = issuedAtOf(payload.value);
  const signed = signingInput(env.format, payload.bytes);
  const signedBy: { kid: string; alg: SignatureAlg }[] = [];
  let revoked = 0;
  let outOfDate = 0;
  let notFips = 0;
  let wrongUsage = 0;
  for (const s of env.signatures) {
    const matching = statements.filter((st) => st.kid === s.kid && st.alg === s.alg);
    if (matching.length === 0) continue;
    const key = matching[0]?.key;
    if (key === undefined || !verifyBytes(s.alg, key, signed, s.sig)) {
      return fail('signature', `the ${s.alg} signature of key ${s.kid} does not verify`);
    }
    if (ctx.revokedKids.has(s.kid)) {
      revoked++;
      continue;
    }
    if (ctx.fips && s.alg !== 'ES256') {
      notFips++;
      continue;
    }
    const usable = matching.filter((st) => st.usage.includes(opts.usage));
    if (usable.length === 0) {
      wrongUsage++;
      continue;
    }
    // A statement bounds when its key may issue, never how long what it issued stays valid.
    if (
      issuedAt !== null &&
      !usable.some(
        (st) => Date.parse(st.not_before) <= issuedAt && issuedAt <= Date.parse(st.not_after),
      )
    ) {
      outOfDate++;
      continue;
    }
    signedBy.push({ kid: s.kid, alg: s.alg });
  }
  if (signedBy.length > 0) {
    return {
      ok: true,
      envelope: env,
      payload: payload.value,
      payloadBytes: payload.bytes,
      signedBy,
      statements,
    };
  }
  if (revoked > 0) return fail('revoked_key', 'every key that signed it has been revoked');
  if (notFips > 0)
    return fail('fips', 'SVC_FIPS=1 accepts only ES256 signatures, and it has none that verifies');
  if (outOfDate > 0)
    return fail(
      'key_statement',
      "it was issued outside the period its signing key's statement allows",
    );
  if (wrongUsage > 0)
    return fail('key_statement', `no key that signed it may sign ${opts.usage} documents`);
  return fail('unknown_key', 'no signature is from a key this build trusts');
}

/** `issued_at` of a payload in ms, or null when it has none. */
function issuedAtOf(value: unknown): number | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = (value as Record<string, unknown>)['issued_at'];
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}
