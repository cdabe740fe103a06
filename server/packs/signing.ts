// Pack signatures: Ed25519 over the UTF-8 bytes of canonicalJson(pack). Canonical bytes, not
// the file's, so reformatting a file keeps it valid while changing any value breaks it. The
// key id is the base32 SHA-256 of the raw public key, computed as the install key fingerprint
// is, so people compare one kind of key id everywhere.
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { keyFingerprint } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { Pack, SignedPack } from './pack.types.js';

/** A public key this build accepts pack signatures from. */
export interface TrustedKey {
  /** base32 SHA-256 of the raw Ed25519 public key (what signature.key holds) */
  readonly id: string;
  /** who holds the private key, for people: `development pack key` */
  readonly name: string;
  readonly key: KeyObject;
}

/** A signed file before its pack has been validated: only the envelope is known. */
export interface SignedEnvelope {
  readonly pack: unknown;
  readonly signature: SignedPack['signature'];
}

export type VerifyResult =
  { readonly ok: true; readonly signer: TrustedKey } | { readonly ok: false; readonly why: string };

const ED25519_SIG_BYTES = 64;

function requireEd25519(key: KeyObject, what: string): void {
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`${what} is a ${key.asymmetricKeyType ?? key.type} key, not Ed25519`);
  }
}

/** The key id of an Ed25519 key (private or public). */
export function packKeyId(key: KeyObject): string {
  requireEd25519(key, 'the pack key');
  return keyFingerprint(key);
}

/** A trusted key from its SPKI PEM. Throws when the PEM is not an Ed25519 public key. */
export function trustedKey(name: string, publicKeyPem: string): TrustedKey {
  const key = createPublicKey(publicKeyPem);
  requireEd25519(key, `the trusted key ${name}`);
  return { id: keyFingerprint(key), name, key };
}

const signedBytes = (pack: unknown): Buffer => Buffer.from(canonicalJson(pack), 'utf8');

export function signPack(pack: Pack, privateKey: KeyObject): SignedPack {
  requireEd25519(privateKey, 'the signing key');
  if (privateKey.type !== 'private') throw new Error('the signing key must be a private key');
  return {
    pack,
    signature: {
      alg: 'ed25519',
      key: keyFingerprint(privateKey),
      sig: sign(null, signedBytes(pack), privateKey).toString('base64'),
    },
  };
}

/**
 * Whether a trusted key signed this pack. The key id only picks the key; the signature is
 * what proves it, so a forged id with someone else's signature still fails.
 */
export function verifyPack(signed: SignedEnvelope, trusted: readonly TrustedKey[]): VerifyResult {
  const { signature } = signed;
  if (signature.alg !== 'ed25519') {
    return { ok: false, why: `signature algorithm ${String(signature.alg)} is not ed25519` };
  }
  const signer = trusted.find((k) => k.id === signature.key);
  if (signer === undefined) {
    return {
      ok: false,
      why: `signed by key ${signature.key}, which this build does not trust`,
    };
  }
  const sig = Buffer.from(signature.sig, 'base64');
  if (sig.length !== ED25519_SIG_BYTES) {
    return { ok: false, why: `the signature is ${String(sig.length)} bytes, not 64` };
  }
  let bytes: Buffer;
  try {
    bytes = signedBytes(signed.pack);
  } catch (err) {
    return { ok: false, why: `the pack cannot be canonicalised: ${(err as Error).message}` };
  }
  if (!verify(null, bytes, signer.key, sig)) {
    return {
      ok: false,
      why: `the signature does not match the pack (changed after signing by ${signer.name})`,
    };
  }
  return { ok: true, signer };
}
