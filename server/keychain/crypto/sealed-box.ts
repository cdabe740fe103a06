// Sealing a payload to a recipient's key-agreement key (HPKE base mode in spirit, design
// §2.2): a fresh ephemeral key pair of the recipient's kind, ECDH, HKDF-SHA256 over the shared
// secret, then an AEAD with the caller's additional data (which binds the keychain, the
// purpose and the recipient). X25519 with ChaCha20-Poly1305, or in FIPS mode P-256 with
// AES-256-GCM. The HKDF info carries a domain tag and both public keys, so a key derived for
// one box, one recipient or one protocol is never the key of another.
//
// Opening fails with one SealedBoxError and nothing else, whatever was wrong (key, damage,
// additional data, shape): telling them apart would only help someone probing the box.
import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

export class SealedBoxError extends Error {
  readonly code = 'unreadable';
  constructor() {
    super('unreadable');
    this.name = 'SealedBoxError';
  }
}

/** The agreement key kinds: X25519, or P-256 in FIPS mode. */
export type AgreementKind = 'x25519' | 'p256';

const AEAD = { x25519: 'chacha20-poly1305', p256: 'aes-256-gcm' } as const;
/** SPKI DER sizes: fixed per kind, so the concatenated HKDF info cannot be read two ways. */
const SPKI_BYTES = { x25519: 44, p256: 91 } as const;
const INFO_TAG = 'svc-keychain/box/v1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** What travels: the AEAD's name and three base64url fields, JSON-safe. */
export interface SealedBox {
  readonly alg: string;
  /** The ephemeral public key, SPKI DER. */
  readonly epk: string;
  readonly nonce: string;
  /** Ciphertext ‖ 16-byte tag. */
  readonly ct: string;
}

function kindOf(key: KeyObject): AgreementKind | null {
  if (key.asymmetricKeyType === 'x25519') return 'x25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return 'p256';
  return null;
}

const publicOf = (key: KeyObject): KeyObject =>
  key.type === 'public' ? key : createPublicKey(key);
const spki = (key: KeyObject): Buffer => publicOf(key).export({ type: 'spki', format: 'der' });

/** A new agreement key pair: X25519, or ECDH P-256 when `fips`. */
export function generateAgreementKey(fips: boolean): {
  privateKey: KeyObject;
  publicKey: KeyObject;
} {
  return fips ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('x25519');
}

/** `x25519:<SPKI DER, base64url>` or `p256:<…>`, from a private or a public key. */
export function exportAgreementPublic(key: KeyObject): string {
  const kind = kindOf(key);
  if (kind === null) throw new TypeError('an agreement key is X25519 or P-256');
  return `${kind}:${spki(key).toString('base64url')}`;
}

/** Canonical unpadded base64url, or null: Node's decoder skips characters it does not know. */
function b64url(text: unknown): Buffer | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const buf = Buffer.from(text, 'base64url');
  return buf.toString('base64url') === text ? buf : null;
}

/** The public key from exportAgreementPublic's text; SealedBoxError for anything else. */
export function importAgreementPublic(text: string): KeyObject {
  const m = /^(x25519|p256):(.*)$/.exec(typeof text === 'string' ? text : '');
  const kind = m?.[1] as AgreementKind | undefined;
  const der = b64url(m?.[2]);
  if (kind === undefined || der?.length !== SPKI_BYTES[kind]) throw new SealedBoxError();
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    if (kindOf(key) !== kind) throw new SealedBoxError();
    return key;
  } catch {
    throw new SealedBoxError();
  }
}

/**
 * HKDF-SHA256(shared, salt = nonce, info = tag ‖ 0 ‖ epk ‖ 0 ‖ recipient), both keys as SPKI
 * DER (whose algorithm identifier also names the curve).
 */
function deriveKey(shared: Buffer, epk: Buffer, recipient: Buffer, nonce: Buffer): Buffer {
  const info = Buffer.concat([Buffer.from(`${INFO_TAG}\0`), epk, Buffer.from([0]), recipient]);
  const key = Buffer.from(hkdfSync('sha256', shared, nonce, info, KEY_BYTES));
  shared.fill(0);
  return key;
}

/** Seals `plaintext` to `recipient` (its public key, or a private key, whose public half is used). */
export function sealTo(recipient: KeyObject, plaintext: Buffer, aad: Buffer): SealedBox {
  const kind = kindOf(recipient);
  if (kind === null) throw new TypeError('a box is sealed to an X25519 or P-256 key');
  const eph = generateAgreementKey(kind === 'p256');
  const epk = spki(eph.publicKey);
  const nonce = randomBytes(NONCE_BYTES);
  const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: publicOf(recipient) });
  const key = deriveKey(shared, epk, spki(recipient), nonce);
  const cipher =
    kind === 'x25519'
      ? createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_BYTES })
      : createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  key.fill(0);
  cipher.setAAD(aad, { plaintextLength: plaintext.length });
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return {
    alg: AEAD[kind],
    epk: epk.toString('base64url'),
    nonce: nonce.toString('base64url'),
    ct: ct.toString('base64url'),
  };
}

/** The plaintext, or SealedBoxError for anything wrong: key, tampering, additional data, shape. */
export function openSealed(recipient: KeyObject, sealed: unknown, aad: Buffer): Buffer {
  try {
    if (recipient.type !== 'private' || typeof sealed !== 'object' || sealed === null)
      throw new SealedBoxError();
    const kind = kindOf(recipient);
    // Own fields only, as JSON.parse makes them: nothing read from a prototype.
    const field = (name: keyof SealedBox): unknown =>
      Object.hasOwn(sealed, name) ? (sealed as Record<string, unknown>)[name] : undefined;
    if (kind === null || field('alg') !== AEAD[kind]) throw new SealedBoxError();
    const epk = b64url(field('epk'));
    const nonce = b64url(field('nonce'));
    const body = b64url(field('ct'));
    if (epk?.length !== SPKI_BYTES[kind] || nonce?.length !== NONCE_BYTES)
      throw new SealedBoxError();
    if (body === null || body.length < TAG_BYTES) throw new SealedBoxError();
    const ephemeral = createPublicKey({ key: epk, format: 'der', type: 'spki' });
    if (kindOf(ephemeral) !== kind) throw new SealedBoxError();
    // X25519 refuses low-order points here (an all-zero secret), P-256 refused off-curve ones above.
    const shared = diffieHellman({ privateKey: recipient, publicKey: ephemeral });
    const key = deriveKey(shared, epk, spki(recipient), nonce);
    const decipher =
      kind === 'x25519'
        ? createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_BYTES })
        : createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    key.fill(0);
    decipher.setAAD(aad, { plaintextLength: body.length - TAG_BYTES });
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(body.subarray(0, body.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new SealedBoxError();
  }
}
