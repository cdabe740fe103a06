// Signed peer requests and answers (design/keychain.md §2.2), in the form of RFC 9421 so that
// common tools can read them: the signature base lists each covered component as
// `"name": value`, then `"@signature-params"` (§2.5). Requests cover the method, path, query,
// content digest and the keychain headers; answers cover the status, the digest, the keychain
// headers and the nonce of the request they answer, so an answer cannot be replayed to another
// request. Ed25519, or ECDSA P-256 (SHA-256, IEEE P1363, 64 bytes) as the FIPS fallback.
//
// Verification runs the cheap checks first and records the nonce only once the signature
// holds, so that unsigned junk can neither cost a signature check nor fill the nonce store.
// Every header is read strictly (one value, exact form, canonical base64): a header that two
// parties could read two ways is refused rather than interpreted. Nothing here throws on what
// a peer sends; failures come back as values naming the header at fault.
import { createHash, randomBytes, sign, verify, type KeyObject } from 'node:crypto';

export const PEER_TAG = 'svc-keychain-peer-v1';
export const MAX_SKEW_S = 300;
export const NONCE_TTL_S = 600;
/** Step 1 of §2.2; the routes' bodyLimit says the same, this keeps the check in one tested place. */
export const MAX_BODY_BYTES = 65_536;

const LABEL = 'kc';
const NONCE_BYTES = 16;
const SIG_BYTES = 64; // Ed25519, and P-256 in P1363 form (r ‖ s), are both 64 bytes
const MAX_HEADER_CHARS = 2048;

/** The headers both requests and answers sign (beside the derived components). */
const SIGNED_HEADERS = [
  'content-digest',
  'keychain-id',
  'keychain-from',
  'keychain-to',
  'keychain-epoch',
  'keychain-head',
] as const;
export const REQUEST_COMPONENTS = ['@method', '@path', '@query', ...SIGNED_HEADERS] as const;
export const RESPONSE_COMPONENTS = [
  '@status',
  ...SIGNED_HEADERS,
  'keychain-request-nonce',
] as const;

export type PeerAlg = 'ed25519' | 'ecdsa-p256-sha256';
/** Request or answer headers, names in lower case (as Node and fetch give them). */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyFailure {
  readonly ok: false;
  readonly status: 400 | 401 | 403 | 413;
  readonly code: string;
  readonly message: string;
  /** On clock_skew: our time (ISO), so the operator can compare the two clocks. */
  readonly serverTime?: string;
}

export interface VerifiedResponse {
  readonly ok: true;
  readonly keyid: string;
  readonly alg: PeerAlg;
  readonly epoch: number;
  readonly head: string;
  /** Unix seconds, as signed. */
  readonly created: number;
}

export interface VerifiedRequest extends VerifiedResponse {
  /** base64 of 16 bytes: the answer echoes it in keychain-request-nonce. */
  readonly nonce: string;
}

type Status = VerifyFailure['status'];
const fail = (status: Status, code: string, message: string, time?: string): VerifyFailure =>
  time === undefined
    ? { ok: false, status, code, message }
    : { ok: false, status, code, message, serverTime: time };

const badHeader = (header: string, why: string): VerifyFailure =>
  fail(400, 'bad_signature_headers', `${header}: ${why}`);

/** The Content-Digest value of a body (RFC 9530), SHA-256 only. */
export function contentDigest(body: Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/** Canonical base64 of exactly `bytes` bytes, or null: Node's decoder forgives too much. */
function b64(text: string, bytes: number): Buffer | null {
  if (text.length !== 4 * Math.ceil(bytes / 3) || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const buf = Buffer.from(text, 'base64');
  return buf.length === bytes && buf.toString('base64') === text ? buf : null;
}

/** `prefix<base64>suffix` with canonical base64 of `bytes` bytes, or null. */
function wrappedB64(v: string, prefix: string, suffix: string, bytes: number): Buffer | null {
  if (!v.startsWith(prefix) || !v.endsWith(suffix) || v.length < prefix.length + suffix.length)
    return null;
  return b64(v.slice(prefix.length, v.length - suffix.length), bytes);
}

const FINGERPRINT = /^[A-Z2-7]{52}$/;
// The header forms, checked before anything else looks at the values. keychain-id may be empty
// (an install that has no keychain yet), as may the head (no authority log yet).
const FORMS: Readonly<Record<string, readonly [(v: string) => boolean, string]>> = {
  'content-digest': [(v) => wrappedB64(v, 'sha-256=:', ':', 32) !== null, 'not sha-256=:<b64>:'],
  'keychain-id': [(v) => /^(kc_[A-Za-z0-9_-]{1,64})?$/.test(v), 'not a keychain id'],
  'keychain-from': [(v) => FINGERPRINT.test(v), 'not a full fingerprint'],
  'keychain-to': [(v) => FINGERPRINT.test(v), 'not a full fingerprint'],
  'keychain-epoch': [(v) => /^(0|[1-9][0-9]{0,14})$/.test(v), 'not a whole number'],
  'keychain-head': [(v) => /^([0-9a-f]{64})?$/.test(v), 'not a hex SHA-256'],
  'keychain-request-nonce': [(v) => b64(v, NONCE_BYTES) !== null, 'not 16 bytes of base64'],
};

function algOf(key: KeyObject): PeerAlg | null {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return 'ecdsa-p256-sha256';
  return null;
}

/** Ed25519 hashes inside; P-256 signs SHA-256 as fixed-size r ‖ s (dsaEncoding is its option). */
const hashOf = (alg: PeerAlg): string | null => (alg === 'ed25519' ? null : 'sha256');
const P1363 = 'ieee-p1363' as const;

/** The alg parameter decides, and the pinned key must be of that kind: no algorithm confusion. */
function verifyBytes(alg: PeerAlg, data: Buffer, key: KeyObject, sig: Buffer): boolean {
  try {
    return algOf(key) === alg && verify(hashOf(alg), data, { key, dsaEncoding: P1363 }, sig);
  } catch {
    return false;
  }
}

/** RFC 9421 §2.5: one line per covered component, then the parameters, joined by LF. */
function signatureBase(
  components: readonly string[],
  values: Readonly<Record<string, string>>,
  params: string,
): Buffer {
  const lines = components.map((c) => `"${c}": ${values[c] ?? ''}`);
  lines.push(`"@signature-params": ${params}`);
  return Buffer.from(lines.join('\n'), 'utf8');
}

interface SignCommon {
  readonly body: Buffer;
  readonly keychainId: string;
  readonly from: string;
  readonly to: string;
  readonly epoch: number;
  readonly head: string;
  /** Ed25519 or P-256 private key; its type chooses the alg. */
  readonly key: KeyObject;
  readonly keyid: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** 16 bytes; random when left out (tests pin it). */
  readonly nonce?: Buffer;
}

function signed(
  components: readonly string[],
  derived: Record<string, string>,
  c: SignCommon,
): Record<string, string> {
  const alg = algOf(c.key);
  if (alg === null || c.key.type !== 'private')
    throw new TypeError('a peer signature needs an Ed25519 or P-256 private key');
  const nonce = c.nonce ?? randomBytes(NONCE_BYTES);
  if (nonce.length !== NONCE_BYTES) throw new TypeError('a peer nonce is 16 bytes');
  const values: Record<string, string> = {
    ...derived,
    'content-digest': contentDigest(c.body),
    'keychain-id': c.keychainId,
    'keychain-from': c.from,
    'keychain-to': c.to,
    'keychain-epoch': String(c.epoch),
    'keychain-head': c.head,
  };
  const list = components.map((name) => `"${name}"`).join(' ');
  const params =
    `(${list});created=${String(Math.floor(c.now / 1000))};nonce="${nonce.toString('base64')}"` +
    `;keyid="${c.keyid}";alg="${alg}";tag="${PEER_TAG}"`;
  const base = signatureBase(components, values, params);
  const sig = sign(hashOf(alg), base, { key: c.key, dsaEncoding: P1363 });
  const headers: Record<string, string> = {};
  for (const name of components) if (!name.startsWith('@')) headers[name] = values[name] ?? '';
  headers['signature-input'] = `${LABEL}=${params}`;
  headers['signature'] = `${LABEL}=:${sig.toString('base64')}:`;
  return headers;
}

interface Target {
  readonly method: string;
  readonly path: string;
  readonly query: string;
}

/** RFC 9421 §2.2: the method in upper case, the query with its `?` (a lone `?` when empty). */
const targetValues = (t: Target): Record<string, string> => ({
  '@method': t.method.toUpperCase(),
  '@path': t.path,
  '@query': t.query.startsWith('?') ? t.query : `?${t.query}`,
});

/** The headers of a signed request (lower-case names). */
export function signRequest(r: SignCommon & Target): Record<string, string> {
  return signed(REQUEST_COMPONENTS, targetValues(r), r);
}

/** The headers of a signed answer to the request whose nonce was `requestNonce`. */
export function signResponse(
  r: SignCommon & { readonly status: number; readonly requestNonce: string },
): Record<string, string> {
  const derived = { '@status': String(r.status), 'keychain-request-nonce': r.requestNonce };
  return signed(RESPONSE_COMPONENTS, derived, r);
}

interface Params {
  readonly created: number;
  readonly nonce: string;
  readonly keyid: string;
  readonly alg: PeerAlg;
  readonly tag: string;
}
interface Parsed {
  readonly values: Readonly<Record<string, string>>;
  readonly params: Params;
  /** The parameters exactly as sent: §2.5 signs the serialization the signer chose. */
  readonly paramsText: string;
  readonly signature: Buffer;
}

/** One header's single value, or null when absent, repeated or oversized. */
function single(headers: HeaderBag, name: string): string | null {
  const v = Object.hasOwn(headers, name) ? headers[name] : undefined;
  return typeof v === 'string' && v.length <= MAX_HEADER_CHARS ? v : null;
}

// A parameter: `;name=` then an integer or a string without quotes or escapes (RFC 8941
// sf-string minus the escapes, which none of our values need).
const PARAM = /;([a-z]+)=(?:([0-9]{1,12})|"([\x20\x21\x23-\x5b\x5d-\x7e]*)")/y;
const STRING_PARAMS = new Set(['nonce', 'keyid', 'alg', 'tag']);

/** Signature-Input read strictly: one `kc` signature, exactly our components, our parameters. */
function parseInput(input: string, components: readonly string[]): [Params, string] | string {
  const list = components.map((c) => `"${c}"`).join(' ');
  const head = `${LABEL}=(${list})`;
  if (!input.startsWith(head)) return `must be ${LABEL}=(${list}) then the parameters`;
  const seen = new Map<string, string>();
  const rest = input.slice(head.length);
  const param = new RegExp(PARAM); // a fresh lastIndex per call: no state shared between calls
  for (let at = 0; at < rest.length; at = param.lastIndex) {
    param.lastIndex = at;
    const m = param.exec(rest);
    if (m === null) return 'parameters must be ;name=value';
    const [, name = '', int, str] = m;
    if (seen.has(name)) return `${name} given twice`;
    if (name === 'created' ? int === undefined : !STRING_PARAMS.has(name) || str === undefined)
      return `${name} is not an expected parameter`;
    seen.set(name, int ?? str ?? '');
  }
  const [created, nonce, keyid, alg, tag] = ['created', 'nonce', 'keyid', 'alg', 'tag'].map((k) =>
    seen.get(k),
  );
  if (!created || !nonce || !keyid || !alg || tag === undefined)
    return 'needs created, nonce, keyid, alg and tag';
  if (b64(nonce, NONCE_BYTES) === null) return 'nonce is not 16 bytes of base64';
  if (!FINGERPRINT.test(keyid)) return 'keyid is not a full fingerprint';
  if (alg !== 'ed25519' && alg !== 'ecdsa-p256-sha256') return `alg ${alg} is not accepted`;
  return [{ created: Number(created), nonce, keyid, alg, tag }, input.slice(LABEL.length + 1)];
}

/** Step 2: every covered header and both signature headers present, single and well formed. */
function parse(
  headers: HeaderBag,
  components: readonly string[],
  derived: Readonly<Record<string, string>>,
): Parsed | VerifyFailure {
  const values: Record<string, string> = { ...derived };
  for (const name of components) {
    if (name.startsWith('@')) continue;
    const v = single(headers, name);
    if (v === null) return badHeader(name, 'missing, repeated or too long');
    const form = FORMS[name];
    if (form !== undefined && !form[0](v)) return badHeader(name, form[1]);
    values[name] = v;
  }
  const input = single(headers, 'signature-input');
  if (input === null) return badHeader('signature-input', 'missing, repeated or too long');
  const parsed = parseInput(input, components);
  if (typeof parsed === 'string') return badHeader('signature-input', parsed);
  const sigHeader = single(headers, 'signature');
  const signature = sigHeader === null ? null : wrappedB64(sigHeader, `${LABEL}=:`, ':', SIG_BYTES);
  if (signature === null) return badHeader('signature', `not ${LABEL}=:<64 bytes of base64>:`);
  const [params, paramsText] = parsed;
  // The key that signs is the sender's own: keyid naming anyone else is a malformed request.
  if (params.keyid !== values['keychain-from'])
    return badHeader('signature-input', 'keyid differs from keychain-from');
  return { values, params, paramsText, signature };
}

/** Steps 3 and 4: our tag, and a clock within ±MAX_SKEW_S of ours. */
function checkTagAndClock(p: Parsed, now: number, what: string): VerifyFailure | null {
  if (p.params.tag !== PEER_TAG)
    return fail(401, 'wrong_tag', `the ${what} is not a ${PEER_TAG} signature`);
  if (Math.abs(now - p.params.created * 1000) <= MAX_SKEW_S * 1000) return null;
  const skew = `${String(Math.round(now / 1000 - p.params.created))} s`;
  const why = `the ${what} was signed ${skew} from this install's clock (over ${String(MAX_SKEW_S)} s)`;
  return fail(401, 'clock_skew', why, new Date(now).toISOString());
}

/** Steps 7 and 8: the body against its digest, then the signature against the pinned key. */
function checkBodyAndSignature(
  p: Parsed,
  components: readonly string[],
  body: Buffer,
  key: KeyObject,
  what: string,
): VerifyFailure | null {
  if (contentDigest(body) !== p.values['content-digest'])
    return fail(401, 'digest_mismatch', `the ${what} body does not match its content-digest`);
  const base = signatureBase(components, p.values, p.paramsText);
  if (!verifyBytes(p.params.alg, base, key, p.signature))
    return fail(401, 'bad_signature', `the ${what} signature does not verify with the pinned key`);
  return null;
}

const verified = (p: Parsed): VerifiedResponse => ({
  ok: true,
  keyid: p.params.keyid,
  alg: p.params.alg,
  epoch: Number(p.values['keychain-epoch']),
  head: p.values['keychain-head'] ?? '',
  created: p.params.created,
});

/** The derived components must be plain printable ASCII: a line break would forge base lines. */
const PRINTABLE = /^[\x21-\x7e]*$/;

/**
 * Checks a signed request in the order of design §2.2: body size, headers, tag, clock,
 * recipient and keychain, pinned sender, digest, signature, and only then the nonce.
 */
export function verifyRequest(
  r: Target & {
    readonly headers: HeaderBag;
    readonly body: Buffer;
    /** Milliseconds since the epoch. */
    readonly now: number;
    /** keychainId null: before pairing (hello, enrol), when there is no keychain id to match. */
    readonly expect: { readonly keychainId: string | null; readonly to: string };
    /** The pinned key of `keyid` for `alg`, or why there is none. */
    readonly publicKeyFor: (
      keyid: string,
      alg: PeerAlg,
    ) => { key: KeyObject } | { refused: 'unknown' | 'removed' };
    /** Stores the nonce until expiresAtMs; false when it was seen before. */
    readonly recordNonce: (keyid: string, nonce: string, expiresAtMs: number) => boolean;
  },
): VerifiedRequest | VerifyFailure {
  if (r.body.length > MAX_BODY_BYTES)
    return fail(413, 'body_too_large', `over ${String(MAX_BODY_BYTES)} bytes`);
  const derived = targetValues(r);
  for (const [name, value] of Object.entries(derived))
    if (!PRINTABLE.test(value) || value.length > MAX_HEADER_CHARS)
      return badHeader(name, 'not printable ASCII');
  const p = parse(r.headers, REQUEST_COMPONENTS, derived);
  if (!('values' in p)) return p;
  const early = checkTagAndClock(p, r.now, 'request');
  if (early !== null) return early;
  if (p.values['keychain-to'] !== r.expect.to)
    return fail(401, 'wrong_recipient', 'the request is addressed to another install');
  if (r.expect.keychainId !== null && p.values['keychain-id'] !== r.expect.keychainId)
    return fail(401, 'wrong_recipient', 'the request is for another keychain');
  const pinned = r.publicKeyFor(p.params.keyid, p.params.alg);
  if ('refused' in pinned)
    return pinned.refused === 'removed'
      ? fail(403, 'member_removed', 'this install was removed from the keychain')
      : fail(401, 'unknown_peer', 'the sender is not a member of this keychain');
  const late = checkBodyAndSignature(p, REQUEST_COMPONENTS, r.body, pinned.key, 'request');
  if (late !== null) return late;
  // Only a request that verified may take room in the nonce store (§2.2 step 9).
  const expiresAtMs = (p.params.created + NONCE_TTL_S) * 1000;
  if (!r.recordNonce(p.params.keyid, p.params.nonce, expiresAtMs))
    return fail(401, 'replay', 'this request was seen before');
  return { ...verified(p), nonce: p.params.nonce };
}

/**
 * Checks a signed answer: from the install we called, to us, for the request we sent (its
 * nonce), in the same order as a request. There is no nonce store here: the request nonce,
 * fresh per call, is what makes an answer single-use.
 */
export function verifyResponse(r: {
  readonly status: number;
  readonly headers: HeaderBag;
  readonly body: Buffer;
  readonly now: number;
  readonly expect: {
    readonly from: string;
    readonly to: string;
    readonly requestNonce: string;
    /** When given, the answer must name this keychain. */
    readonly keychainId?: string;
  };
  /** The pinned key of `expect.from`. */
  readonly key: KeyObject;
}): VerifiedResponse | VerifyFailure {
  const p = parse(r.headers, RESPONSE_COMPONENTS, { '@status': String(r.status) });
  if (!('values' in p)) return p;
  const early = checkTagAndClock(p, r.now, 'answer');
  if (early !== null) return early;
  if (p.values['keychain-from'] !== r.expect.from || p.values['keychain-to'] !== r.expect.to)
    return fail(401, 'wrong_recipient', 'the answer is from another install or for another');
  if (r.expect.keychainId !== undefined && p.values['keychain-id'] !== r.expect.keychainId)
    return fail(401, 'wrong_recipient', 'the answer is for another keychain');
  if (p.values['keychain-request-nonce'] !== r.expect.requestNonce)
    return fail(401, 'replay', 'the answer is for another request');
  return checkBodyAndSignature(p, RESPONSE_COMPONENTS, r.body, r.key, 'answer') ?? verified(p);
}
