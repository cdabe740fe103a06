// Sealing a payload to a recipient's key-agreement key (HPKE base mode in spirit, design
// §2.2): an ephemeral key pair of the recipient's kind, ECDH, HKDF-SHA256 over the shared
// secret with both public keys in the info, then an AEAD with the caller's additional data
// (which binds the purpose, the keychain and the recipient). X25519 with
// ChaCha20-Poly1305, or under FIPS P-256 with AES-256-GCM.
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

export class SealedBoxError extends Error {
  constructor() {
    super('unreadable');
    this.name = 'SealedBoxError';
  }
}

type Kind = 'x25519' | 'p256';
const AEAD = { x25519: 'chacha20-poly1305', p256: 'aes-256-gcm' } as const;
const INFO = 'svc-keychain/box/v1';
const TAG_BYTES = 16;
const NONCE_BYTES = 12;

/** What travels: every field base64url, JSON-safe. */
export interface SealedBox {
  readonly alg: string;
  readonly epk: string;
  readonly nonce: string;
  readonly ct: string;
}

function kindOf(key: KeyObject): Kind {
  if (key.asymmetricKeyType === 'x25519') return 'x25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return 'p256';
  throw new SealedBoxError();
}

const publicOf = (key: KeyObject): KeyObject =>
  key.type === 'public' ? key : createPublicKey(key);
const spki = (key: KeyObject): Buffer => publicOf(key).export({ type: 'spki', format: 'der' });

export function generateAgreementKey(fips: boolean): {
  privateKey: KeyObject;
  publicKey: KeyObject;
} {
  return fips ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('x25519');
}

/** `x25519:<SPKI DER, base64url>` or `p256:<…>`, from a private or a public key. */
export function exportAgreementPublic(key: KeyObject): string {
  return `${kindOf(key)}:${spki(key).toString('base64url')}`;
}

export function importAgreementPublic(text: string): KeyObject {
  const m = /^(x25519|p256):([A-Za-z0-9_-]{40,200})$/.exec(text);
  if (m === null) throw new SealedBoxError();
  try {
    const key = createPublicKey({
      key: Buffer.from(m[2] ?? '', 'base64url'),
      format: 'der',
      type: 'spki',
    });
    if (kindOf(key) !== m[1]) throw new SealedBoxError();
    return key;
  } catch {
    throw new SealedBoxError();
  }
}

function keyFor(shared: Buffer, epk: Buffer, recipient: Buffer, nonce: Buffer): Buffer {
  const info = Buffer.concat([Buffer.from(`${INFO}\0`), epk, Buffer.from('\0'), recipient]);
  return Buffer.from(hkdfSync('sha256', shared, nonce, info, 32));
}

export function sealTo(recipient: KeyObject, plaintext: Buffer, aad: Buffer): SealedBox {
  const kind = kindOf(recipient);
  const eph = generateAgreementKey(kind === 'p256');
  const epk = spki(eph.publicKey);
  const nonce = randomBytes(NONCE_BYTES);
  const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: publicOf(recipient) });
  const key = keyFor(shared, epk, spki(recipient), nonce);
  const cipher =
    kind === 'x25519'
      ? createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_BYTES })
      : createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
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
    const s = sealed as Partial<SealedBox> | null;
    if (typeof s !== 'object' || s === null) throw new SealedBoxError();
    const { alg, epk, nonce, ct } = s;
    if (
      typeof alg !== 'string' ||
      typeof epk !== 'string' ||
      typeof nonce !== 'string' ||
      typeof ct !== 'string'
    )
      throw new SealedBoxError();
    const privateKey =
      recipient.type === 'private'
        ? recipient
        : createPrivateKey(recipient.export({ type: 'pkcs8', format: 'der' }));
    const kind = kindOf(privateKey);
    if (alg !== AEAD[kind]) throw new SealedBoxError();
    const epkDer = Buffer.from(epk, 'base64url');
    const ephemeral = createPublicKey({ key: epkDer, format: 'der', type: 'spki' });
    if (kindOf(ephemeral) !== kind) throw new SealedBoxError();
    const iv = Buffer.from(nonce, 'base64url');
    const body = Buffer.from(ct, 'base64url');
    if (iv.length !== NONCE_BYTES || body.length < TAG_BYTES) throw new SealedBoxError();
    const shared = diffieHellman({ privateKey, publicKey: ephemeral });
    const key = keyFor(shared, epkDer, spki(privateKey), iv);
    const decipher =
      kind === 'x25519'
        ? createDecipheriv('chacha20-poly1305', key, iv, { authTagLength: TAG_BYTES })
        : createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
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
