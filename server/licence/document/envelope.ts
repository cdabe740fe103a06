// The signed envelope every licence fact travels in (licence.md §3.3): a format string, the
// payload as base64url of its exact JSON bytes, the signatures, and the key statements of the
// signers. Signatures cover `format + "\n" + payload bytes`, so no canonical form is needed and
// one document type can never be passed off as another.
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export type SignatureAlg = 'Ed25519' | 'ES256';
export const SIGNATURE_ALGS: readonly SignatureAlg[] = ['Ed25519', 'ES256'];

export interface EnvelopeSignature {
  readonly alg: SignatureAlg;
  readonly kid: string;
  readonly sig: string;
}

export interface Envelope {
  readonly format: string;
  readonly payload: string;
  readonly signatures: readonly EnvelopeSignature[];
  /** key statements (format svc-key/1) of the keys that signed, each signed by a root */
  readonly keys?: readonly Envelope[];
}

/** A private key and what it signs as. */
export interface Signer {
  readonly alg: SignatureAlg;
  readonly kid: string;
  readonly key: KeyObject;
}

/** The most payload bytes a document may carry. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** The most bytes a whole envelope (payload, signatures, statements) may take. */
export const MAX_ENVELOPE_BYTES = 256 * 1024;

/** A key id: the first 8 bytes, hex, of SHA-256 over the public key's SPKI DER. */
export function kidOf(key: KeyObject): string {
  return createHash('sha256').update(spkiDer(key)).digest('hex').slice(0, 16);
}

export function spkiDer(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'der' });
}

/** The algorithm a key signs with, or null for a key type documents do not use. */
export function algOf(key: KeyObject): SignatureAlg | null {
  if (key.asymmetricKeyType === 'ed25519') return 'Ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    return 'ES256';
  }
  return null;
}

export function signingInput(format: string, payloadBytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${format}\n`, 'utf8'), payloadBytes]);
}

export function signBytes(signer: Signer, input: Buffer): string {
  const sig =
    signer.alg === 'Ed25519'
      ? sign(null, input, signer.key)
      : sign('sha256', input, { key: signer.key, dsaEncoding: 'ieee-p1363' });
  return sig.toString('base64url');
}

/** Whether `sig` (base64url) is `key`'s signature over `input`; never throws. */
export function verifyBytes(
  alg: SignatureAlg,
  key: KeyObject,
  input: Buffer,
  sig: string,
): boolean {
  if (algOf(key) !== alg) return false;
  const raw = Buffer.from(sig, 'base64url');
  if (raw.toString('base64url') !== sig) return false; // one spelling per signature
  try {
    return alg === 'Ed25519'
      ? verify(null, input, key, raw)
      : verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, raw);
  } catch {
    return false;
  }
}

/** Signs `payload` (an object, written as JSON once; those bytes are what is signed). */
export function seal(
  format: string,
  payload: unknown,
  signers: readonly Signer[],
  keys?: readonly Envelope[],
): Envelope {
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const input = signingInput(format, bytes);
  return {
    format,
    payload: bytes.toString('base64url'),
    signatures: signers.map((s) => ({ alg: s.alg, kid: s.kid, sig: signBytes(s, input) })),
    ...(keys === undefined ? {} : { keys }),
  };
}
