// The install request N makes to be added to a licence (svc-install-request/1, licence.md §3.7):
// signed with N's install key over "svc-install-request/1\n" ‖ payload bytes, carried as an
// armoured SVC INSTALL REQUEST. Reading one checks, in this order and each on its own so `look`
// can show them all: the armour, the signature (by the install_pub inside it), the payload's
// format, and that the untrusted headers say what the payload says.
import { randomBytes, type KeyObject } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { signBytes, signingInput, verifyBytes, kidOf } from '../document/envelope.js';
import { newUlid } from '../../shared/ids.js';
import { payloadJson, readArmour, writeArmour, type Armoured } from './armour.js';
import { installCode } from './code.js';
import { installKeyFromPub, installPubOf } from './install-pub.js';

export const REQUEST_FORMAT = 'svc-install-request/1';
export const REQUEST_LIFETIME_MS = 7 * 86_400_000;
export const PURPOSES = ['add', 'move', 'dr', 'replace'] as const;
export type Purpose = (typeof PURPOSES)[number];
/** Where a fingerprint comes from: server/install/fingerprint.ts's `source`, as it names them. */
export const FINGERPRINT_KINDS = ['cluster', 'machine-id', 'hardware-id'] as const;
export type FingerprintKind = (typeof FINGERPRINT_KINDS)[number];

const Ulid = Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' });
const Iso = Type.String({ format: 'date-time', maxLength: 40 });

export const RequestPayload = Type.Object(
  {
    format: Type.Literal(REQUEST_FORMAT),
    req_id: Ulid,
    fingerprint: Type.String({ maxLength: 64 }),
    kind: Type.String({ maxLength: 16 }),
    install_pub: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    install_pub_p256: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 200 })),
    purpose: Type.Union([
      Type.Literal('add'),
      Type.Literal('move'),
      Type.Literal('dr'),
      Type.Literal('replace'),
    ]),
    label: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
    version: Type.String({ maxLength: 64 }),
    licence_id: Type.Union([Ulid, Type.Null()]),
    nonce: Type.String({ pattern: '^[A-Za-z0-9_-]{22}$' }),
    created_at: Iso,
    expires_at: Iso,
  },
  { additionalProperties: false },
);
export type RequestPayload = Static<typeof RequestPayload>;

export interface NewRequest {
  /** N's install key (Ed25519, private) */
  readonly installKey: KeyObject;
  readonly fingerprint: string;
  readonly kind: FingerprintKind;
  readonly purpose: Purpose;
  readonly label: string | null;
  readonly version: string;
  /** the licence N holds a copy of, if any */
  readonly licenceId: string | null;
  readonly now: number;
  /** N's P-256 key, SPKI base64url, under SVC_FIPS=1 */
  readonly installPubP256?: string;
}

/** A request as it was signed: the payload, its exact bytes, N's signature and the code. */
export interface SignedRequest {
  readonly payload: RequestPayload;
  readonly bytes: Buffer;
  /** base64url */
  readonly sig: string;
  /** "418 207" */
  readonly code: string;
}

export interface BuiltRequest extends SignedRequest {
  /** the armoured text N's admin carries to E */
  readonly text: string;
}

/** The headers a request's armour carries, in order (untrusted: look compares them). */
export function requestHeaders(p: RequestPayload, code: string): [string, string][] {
  return [
    ...(p.label === null ? [] : [['Label', p.label] as [string, string]]),
    ['Fingerprint', p.fingerprint],
    ['Purpose', p.purpose],
    ['Code', code],
  ];
}

/** Builds and signs N's request; its text and code are what `ask` answers. */
export function buildRequest(input: NewRequest): BuiltRequest {
  const payload: RequestPayload = {
    format: REQUEST_FORMAT,
    req_id: newUlid(input.now),
    fingerprint: input.fingerprint,
    kind: input.kind,
    install_pub: installPubOf(input.installKey),
    ...(input.installPubP256 === undefined ? {} : { install_pub_p256: input.installPubP256 }),
    purpose: input.purpose,
    label: input.label,
    version: input.version,
    licence_id: input.licenceId,
    nonce: randomBytes(16).toString('base64url'),
    created_at: new Date(input.now).toISOString(),
    expires_at: new Date(input.now + REQUEST_LIFETIME_MS).toISOString(),
  };
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const sig = signBytes(
    { alg: 'Ed25519', kid: kidOf(input.installKey), key: input.installKey },
    signingInput(REQUEST_FORMAT, bytes),
  );
  const code = installCode(bytes, Buffer.from(sig, 'base64url'));
  const signed = { payload, bytes, sig, code };
  return { ...signed, text: armourRequest(signed) };
}

/** The armoured text of a signed request, as N writes it (E rewrites a pasted one this way). */
export function armourRequest(r: SignedRequest): string {
  return writeArmour({
    label: 'SVC INSTALL REQUEST',
    headers: requestHeaders(r.payload, r.code),
    payload: r.bytes,
    sig: r.sig,
  });
}

export interface Check {
  readonly ok: boolean;
  readonly detail?: string;
}

/** What reading a request text found, each check on its own (look shows them all). */
export interface RequestExamination {
  readonly armour: Check;
  readonly signature: Check;
  readonly format: Check;
  readonly headers: Check;
  /** the code of the text as pasted; null when its armour could not be read */
  readonly digits: string | null;
  /** the payload when its format is right (whatever the signature says) */
  readonly payload: RequestPayload | null;
  /** the signed request when armour, signature and format all hold */
  readonly signed: SignedRequest | null;
}

const pass: Check = { ok: true };
const failed = (detail: string): Check => ({ ok: false, detail });

/** Reads a request text and checks its armour, signature, format and headers; never throws. */
export function examineRequest(text: unknown): RequestExamination {
  const armour = readArmour(text, { label: 'SVC INSTALL REQUEST' });
  if (!armour.ok) {
    const why = failed('the armour could not be read');
    return {
      armour: failed(armour.reason),
      signature: why,
      format: why,
      headers: why,
      digits: null,
      payload: null,
      signed: null,
    };
  }
  const a = armour.armoured;
  const sigBytes = Buffer.from(a.sig, 'base64url');
  const digits = installCode(a.payload, sigBytes);
  const read = payloadJson(a.payload);
  const json = read.ok ? read.value : undefined;
  const jsonProblem = read.ok ? null : read.reason;
  const signature = checkSignature(a, json, jsonProblem);
  const format = jsonProblem !== null ? failed(jsonProblem) : checkFormat(json);
  const payload = format.ok ? (json as RequestPayload) : null;
  const headers =
    payload === null
      ? failed('the payload could not be read to compare with')
      : headersAgree(a.headers, requestHeaders(payload, digits));
  return {
    armour: pass,
    signature,
    format,
    headers,
    digits,
    payload,
    signed:
      payload !== null && signature.ok
        ? { payload, bytes: a.payload, sig: a.sig, code: digits }
        : null,
  };
}

function checkSignature(a: Armoured, json: unknown, jsonProblem: string | null): Check {
  if (jsonProblem !== null) return failed('no install key to check with: ' + jsonProblem);
  const pub =
    typeof json === 'object' && json !== null
      ? (json as Record<string, unknown>)['install_pub']
      : undefined;
  const key = installKeyFromPub(pub);
  if (key === null) return failed('install_pub is not an Ed25519 public key');
  return verifyBytes('Ed25519', key, signingInput(REQUEST_FORMAT, a.payload), a.sig)
    ? pass
    : failed('the signature does not verify with the install_pub inside the request');
}

function checkFormat(json: unknown): Check {
  if (!Value.Check(RequestPayload, json)) {
    const first = Value.Errors(RequestPayload, json)[0];
    const where = first === undefined ? '' : `${first.instancePath.replace(/^\//, '') || '/'}: `;
    return failed(`not a ${REQUEST_FORMAT} payload (${where}${first?.message ?? 'invalid'})`);
  }
  const created = Date.parse(json.created_at);
  const expires = Date.parse(json.expires_at);
  if (!(expires > created)) return failed('expires_at is not after created_at');
  if (expires - created > REQUEST_LIFETIME_MS) {
    return failed('the request claims to live longer than 7 days');
  }
  return pass;
}

/** Headers are comments; any difference from what the payload implies is flagged by name. */
export function headersAgree(
  actual: readonly (readonly [string, string])[],
  expected: readonly (readonly [string, string])[],
): Check {
  // Names compare exactly: a text is written by this service, never retyped.
  const want = new Map(expected.map(([n, v]) => [n, v]));
  const seen = new Set<string>();
  for (const [n, v] of actual) {
    const e = want.get(n);
    if (e === undefined) return failed(`header "${n}" is not one this text carries`);
    if (seen.has(n)) return failed(`header "${n}" appears twice`);
    seen.add(n);
    if (e !== v) return failed(`header "${n}" says "${v}", the payload "${e}"`);
  }
  for (const n of want.keys()) {
    if (!seen.has(n)) return failed(`header "${n}" is missing`);
  }
  return pass;
}

export type RequestRead =
  | { readonly ok: true; readonly request: SignedRequest }
  | {
      readonly ok: false;
      readonly check: 'armour' | 'signature' | 'format' | 'headers_match_payload';
      readonly detail: string;
    };

/** Reads and verifies a request text; the first failed check and why, or the signed request. */
export function parseRequest(text: unknown): RequestRead {
  const x = examineRequest(text);
  const order = [
    ['armour', x.armour],
    ['signature', x.signature],
    ['format', x.format],
    ['headers_match_payload', x.headers],
  ] as const;
  for (const [check, c] of order) {
    if (!c.ok) return { ok: false, check, detail: c.detail ?? check };
  }
  if (x.signed === null) return { ok: false, check: 'format', detail: 'unreadable' };
  return { ok: true, request: x.signed };
}
