// Signed peer requests and answers (design/keychain.md §2.2), in the form of RFC 9421 so
// that common tools can read them: the signature base lists each covered component as
// `"name": value`, then `"@signature-params"`. Requests cover the method, path, query,
// content digest and the keychain headers; answers cover the status, the digest, the
// keychain headers and the nonce of the request they answer, so an answer cannot be
// replayed to another request. Ed25519, or ECDSA P-256 (SHA-256, IEEE P1363) under FIPS.
//
// Verification runs the cheap checks first and records the nonce only once the signature
// holds, so that unsigned junk can neither cost a signature check nor fill the nonce store.
import { createHash, randomBytes, sign, verify, type KeyObject } from 'node:crypto';

export const PEER_TAG = 'svc-keychain-peer-v1';
export const MAX_SKEW_S = 300;
export const NONCE_TTL_S = 600;

const REQUEST_COMPONENTS = [
  '@method',
  '@path',
  '@query',
  'content-digest',
  'keychain-id',
  'keychain-from',
  'keychain-to',
  'keychain-epoch',
  'keychain-head',
] as const;
const RESPONSE_COMPONENTS = [
  '@status',
  'content-digest',
  'keychain-id',
  'keychain-from',
  'keychain-to',
  'keychain-epoch',
  'keychain-head',
  'keychain-request-nonce',
] as const;

type Alg = 'ed25519' | 'ecdsa-p256-sha256';

export interface VerifyFailure {
  readonly ok: false;
  readonly status: 400 | 401 | 403;
  readonly code: string;
  readonly message: string;
  /** On clock_skew: our time, so the operator can compare the two clocks. */
  readonly serverTime?: string;
}

export interface VerifiedRequest {
  readonly ok: true;
  readonly keyid: string;
  readonly epoch: number;
  readonly head: string;
  readonly created: number;
  readonly nonce: string;
}

const fail = (
  status: 400 | 401 | 403,
  code: string,
  message: string,
  serverTime?: string,
): VerifyFailure => ({
  ok: false,
  status,
  code,
  message,
  ...(serverTime !== undefined && { serverTime }),
});

export function contentDigest(body: Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

function algOf(key: KeyObject): Alg {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return 'ecdsa-p256-sha256';
  throw new Error(
    `a peer signature needs an Ed25519 or P-256 key, not ${String(key.asymmetricKeyType)}`,
  );
}

function signBytes(alg: Alg, data: Buffer, key: KeyObject): Buffer {
  return alg === 'ed25519'
    ? sign(null, data, key)
    : sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
}

function verifyBytes(alg: Alg, data: Buffer, key: KeyObject, sig: Buffer): boolean {
  try {
    if (alg !== algOf(key)) return false;
    return alg === 'ed25519'
      ? verify(null, data, key, sig)
      : verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  } catch {
    return false;
  }
}

interface Params {
  readonly created: number;
  readonly nonce: string;
  readonly keyid: string;
  readonly alg: Alg;
  readonly tag: string;
}

function paramsText(components: readonly string[], p: Params): string {
  const list = components.map((c) => `"${c}"`).join(' ');
  return `(${list});created=${String(p.created)};nonce="${p.nonce}";keyid="${p.keyid}";alg="${p.alg}";tag="${p.tag}"`;
}

function signatureBase(
  components: readonly string[],
  values: Readonly<Record<string, string>>,
  params: string,
): Buffer {
  const lines = components.map((c) => `"${c}": ${values[c] ?? ''}`);
  lines.push(`"@signature-params": ${params}`);
  return Buffer.from(lines.join('\n'), 'utf8');
}

interface Common {
  readonly body: Buffer;
  readonly keychainId: string;
  readonly from: string;
  readonly to: string;
  readonly epoch: number;
  readonly head: string;
  readonly key: KeyObject;
  readonly keyid: string;
  readonly now: number;
}

function signed(
  components: readonly string[],
  values: Record<string, string>,
  c: Common,
  nonce: Buffer,
): Record<string, string> {
  const alg = algOf(c.key);
  const params = paramsText(components, {
    created: Math.floor(c.now / 1000),
    nonce: nonce.toString('base64'),
    keyid: c.keyid,
    alg,
    tag: PEER_TAG,
  });
  const sig = signBytes(alg, signatureBase(components, values, params), c.key);
  const headers: Record<string, string> = {};
  for (const name of components) if (!name.startsWith('@')) headers[name] = values[name] ?? '';
  headers['signature-input'] = `kc=${params}`;
  headers['signature'] = `kc=:${sig.toString('base64')}:`;
  return headers;
}

function keychainValues(c: Common): Record<string, string> {
  return {
    'content-digest': contentDigest(c.body),
    'keychain-id': c.keychainId,
    'keychain-from': c.from,
    'keychain-to': c.to,
    'keychain-epoch': String(c.epoch),
    'keychain-head': c.head,
  };
}

/** The headers of a signed request (lower-case names). */
export function signRequest(
  r: Common & {
    readonly method: string;
    readonly path: string;
    readonly query: string;
    readonly nonce?: Buffer;
  },
): Record<string, string> {
  const values = {
    '@method': r.method.toUpperCase(),
    '@path': r.path,
    '@query': r.query === '' ? '?' : r.query,
    ...keychainValues(r),
  };
  return signed(REQUEST_COMPONENTS, values, r, r.nonce ?? randomBytes(16));
}

/** The headers of a signed answer to the request that carried `requestNonce`. */
export function signResponse(
  r: Common & { readonly status: number; readonly requestNonce: string },
): Record<string, string> {
  const values = {
    '@status': String(r.status),
    ...keychainValues(r),
    'keychain-request-nonce': r.requestNonce,
  };
  return signed(RESPONSE_COMPONENTS, values, r, randomBytes(16));
}

type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

const SIG_INPUT = /^kc=\(((?:"[a-z@-]+"(?: "[a-z@-]+")*)?)\)((?:;[a-z]+=(?:\d{1,12}|"[^"\\]*"))*)$/;
const SIG = /^kc=:([A-Za-z0-9+/]+={0,2}):$/;
const NONCE = /^[A-Za-z0-9+/]{22}==$/;
const HEAD = /^[0-9a-f]{0,64}$/;
const FP = /^[A-Z2-7]{52}$/;

/** One header as a single string, or null when absent, repeated or over 2 KB. */
function single(headers: HeaderBag, name: string): string | null {
  const v = headers[name];
  if (typeof v !== 'string' || v.length > 2048) return null;
  return v;
}

interface Parsed {
  readonly values: Record<string, string>;
  readonly params: Params;
  readonly paramsText: string;
  readonly signature: Buffer;
}

/** The signature headers read strictly; a failure names the header. */
function parse(
  headers: HeaderBag,
  components: readonly string[],
  derived: Record<string, string>,
): Parsed | VerifyFailure {
  const bad = (header: string, why: string) =>
    fail(400, 'bad_signature_headers', `${header}: ${why}`);
  const values: Record<string, string> = { ...derived };
  for (const name of components) {
    if (name.startsWith('@')) continue;
    const v = single(headers, name);
    if (v === null) return bad(name, 'missing or repeated');
    values[name] = v;
  }
  if (!/^\d{1,12}$/.test(values['keychain-epoch'] ?? ''))
    return bad('keychain-epoch', 'not a whole number');
  if (!HEAD.test(values['keychain-head'] ?? '')) return bad('keychain-head', 'not a hex hash');
  if (!FP.test(values['keychain-from'] ?? ''))
    return bad('keychain-from', 'not a full fingerprint');
  if (!FP.test(values['keychain-to'] ?? '')) return bad('keychain-to', 'not a full fingerprint');
  const input = single(headers, 'signature-input');
  const sigHeader = single(headers, 'signature');
  if (input === null) return bad('signature-input', 'missing or repeated');
  if (sigHeader === null) return bad('signature', 'missing or repeated');
  const m = SIG_INPUT.exec(input);
  if (m === null) return bad('signature-input', 'not kc=(…);created=…;nonce=…;keyid=…;alg=…;tag=…');
  const covered = (m[1] ?? '').split(' ').map((c) => c.replace(/"/g, ''));
  if (covered.join(' ') !== components.join(' '))
    return bad('signature-input', `must cover ${components.join(' ')}`);
  const params: Record<string, string> = {};
  for (const part of (m[2] ?? '').split(';').slice(1)) {
    const eq = part.indexOf('=');
    const k = part.slice(0, eq);
    if (Object.hasOwn(params, k)) return bad('signature-input', `${k} given twice`);
    params[k] = part.slice(eq + 1).replace(/^"|"$/g, '');
  }
  const { created, nonce, keyid, alg, tag } = params;
  if (
    created === undefined ||
    nonce === undefined ||
    keyid === undefined ||
    alg === undefined ||
    tag === undefined
  )
    return bad('signature-input', 'needs created, nonce, keyid, alg and tag');
  if (!/^\d+$/.test(created)) return bad('signature-input', 'created is not a time');
  if (!NONCE.test(nonce)) return bad('signature-input', 'nonce is not 16 bytes of base64');
  if (alg !== 'ed25519' && alg !== 'ecdsa-p256-sha256')
    return bad('signature-input', `alg ${alg} is not accepted`);
  const s = SIG.exec(sigHeader);
  const signature = s === null ? null : Buffer.from(s[1] ?? '', 'base64');
  if (signature?.length !== (alg === 'ed25519' ? 64 : 64))
    return bad('signature', 'not kc=:<64 bytes of base64>:');
  return {
    values,
    params: { created: Number(created), nonce, keyid, alg, tag },
    paramsText: input.slice(3),
    signature,
  };
}

/**
 * Checks a signed request, cheapest checks first (design §2.2): the headers, the tag, the
 * clock, that we are the recipient (and the keychain), that the sender is pinned, the
 * digest, the signature, and only then records the nonce.
 */
export function verifyRequest(r: {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: HeaderBag;
  readonly body: Buffer;
  readonly now: number;
  /** keychainId null: before pairing (hello, enrol), when the sender has no keychain id to match. */
  readonly expect: { readonly keychainId: string | null; readonly to: string };
  readonly publicKeyFor: (keyid: string) => { key: KeyObject } | { refused: 'unknown' | 'removed' };
  readonly recordNonce: (keyid: string, nonce: string, expiresAtMs: number) => boolean;
}): VerifiedRequest | VerifyFailure {
  const derived = {
    '@method': r.method.toUpperCase(),
    '@path': r.path,
    '@query': r.query === '' ? '?' : r.query,
  };
  const p = parse(r.headers, REQUEST_COMPONENTS, derived);
  if ('ok' in p) return p;
  if (p.params.tag !== PEER_TAG)
    return fail(401, 'wrong_tag', `the signature is not a ${PEER_TAG} signature`);
  const createdMs = p.params.created * 1000;
  if (Math.abs(r.now - createdMs) > MAX_SKEW_S * 1000)
    return fail(
      401,
      'clock_skew',
      `the request was signed at ${new Date(createdMs).toISOString()}, more than ${String(MAX_SKEW_S)} s from this install's clock`,
      new Date(r.now).toISOString(),
    );
  if (
    p.values['keychain-to'] !== r.expect.to ||
    (r.expect.keychainId !== null && p.values['keychain-id'] !== r.expect.keychainId)
  )
    return fail(401, 'wrong_recipient', 'the request is addressed to another install or keychain');
  if (p.params.keyid !== p.values['keychain-from'])
    return fail(401, 'bad_signature_headers', 'keyid and keychain-from differ');
  const pinned = r.publicKeyFor(p.params.keyid);
  if ('refused' in pinned)
    return pinned.refused === 'removed'
      ? fail(
          403,
          'member_removed',
          'this install was removed from the keychain: pair or enrol again',
        )
      : fail(401, 'unknown_peer', 'the sender is not a member of this keychain');
  if (contentDigest(r.body) !== p.values['content-digest'])
    return fail(401, 'digest_mismatch', 'the body does not match its content-digest');
  if (
    !verifyBytes(
      p.params.alg,
      signatureBase(REQUEST_COMPONENTS, p.values, p.paramsText),
      pinned.key,
      p.signature,
    )
  )
    return fail(401, 'bad_signature', 'the signature does not verify with the pinned key');
  if (!r.recordNonce(p.params.keyid, p.params.nonce, createdMs + NONCE_TTL_S * 1000))
    return fail(401, 'replay', 'this request was seen before');
  return {
    ok: true,
    keyid: p.params.keyid,
    epoch: Number(p.values['keychain-epoch']),
    head: p.values['keychain-head'] ?? '',
    created: p.params.created,
    nonce: p.params.nonce,
  };
}

/** Checks a signed answer: by the install we called, to us, for the request we sent. */
export function verifyResponse(r: {
  readonly status: number;
  readonly headers: HeaderBag;
  readonly body: Buffer;
  readonly now: number;
  readonly expect: { readonly from: string; readonly to: string; readonly requestNonce: string };
  readonly key: KeyObject;
}): { readonly ok: true } | VerifyFailure {
  const p = parse(r.headers, RESPONSE_COMPONENTS, { '@status': String(r.status) });
  if ('ok' in p) return p;
  if (p.params.tag !== PEER_TAG)
    return fail(401, 'wrong_tag', `the answer is not a ${PEER_TAG} signature`);
  if (Math.abs(r.now - p.params.created * 1000) > MAX_SKEW_S * 1000)
    return fail(
      401,
      'clock_skew',
      'the answer was signed too far from this install’s clock',
      new Date(r.now).toISOString(),
    );
  if (
    p.values['keychain-from'] !== r.expect.from ||
    p.params.keyid !== r.expect.from ||
    p.values['keychain-to'] !== r.expect.to
  )
    return fail(401, 'wrong_recipient', 'the answer is from another install or for another');
  if (p.values['keychain-request-nonce'] !== r.expect.requestNonce)
    return fail(401, 'replay', 'the answer is for another request');
  if (contentDigest(r.body) !== p.values['content-digest'])
    return fail(401, 'digest_mismatch', 'the answer does not match its content-digest');
  if (
    !verifyBytes(
      p.params.alg,
      signatureBase(RESPONSE_COMPONENTS, p.values, p.paramsText),
      r.key,
      p.signature,
    )
  )
    return fail(401, 'bad_signature', 'the answer’s signature does not verify with the pinned key');
  return { ok: true };
}
