// `install_pub` in licence documents and exchange texts: the install's raw 32-byte Ed25519 public
// key, base64url (43 characters), as RFC 8032 writes it, rather than SPKI DER.
import { createPublicKey, type KeyObject } from 'node:crypto';

/** The raw Ed25519 public key of `key` (private or public), base64url; throws for other keys. */
export function installPubOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== 'ed25519') throw new Error('an install key is Ed25519');
  const jwk = pub.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new Error('an Ed25519 key without x');
  return jwk.x;
}

/** The public key `install_pub` names, or null when it is not a raw Ed25519 key. */
export function installKeyFromPub(pub: unknown): KeyObject | null {
  if (typeof pub !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(pub)) return null;
  if (Buffer.from(pub, 'base64url').toString('base64url') !== pub) return null;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pub }, format: 'jwk' });
  } catch {
    return null;
  }
}
