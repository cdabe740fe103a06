// The sealed keychain file (design/keychain.md §2.9): the carried parts under a passphrase,
// for a site that cannot reach its home (or a new one set up from a file).
//
//   line 1  svc-keychain-sealed/v1
//   line 2  the header, canonical JSON (KDF and its parameters, salt, the wrapped file key,
//           AEAD, nonce, keychain, source fingerprint, epoch, content version, parts)
//   line 3  base64(ciphertext ‖ tag)
//
// A random file key is wrapped under the passphrase's key; the payload key is derived from
// the file key. The whole header is authenticated. Parameters are fixed when sealing and
// bounded when opening, before the KDF runs, so a file cannot ask for a memory or CPU bomb.
// The KDF runs on libuv's thread pool, at most two at a time.
import {
  createCipheriv,
  createDecipheriv,
  hkdfSync,
  pbkdf2,
  randomBytes,
  scrypt,
  type CipherGCMTypes,
} from 'node:crypto';
import { canonicalJson } from '../shared/canonical-json.js';

export const SEALED_MAGIC = 'svc-keychain-sealed/v1';
/** Sealing: scrypt logN 17 (128 MiB), or PBKDF2-SHA256 600,000 under FIPS. */
export const SEAL_SCRYPT = { logN: 17, r: 8, p: 1 } as const;
export const SEAL_PBKDF2_ITER = 600_000;
/** Opening accepts only these. */
const OPEN_LOGN = { min: 15, max: 20 };
const OPEN_ITER = { min: 100_000, max: 10_000_000 };
const MAX_KDF_JOBS = 2;
export const MIN_PASSPHRASE = 12;
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export type SealedErrorCode =
  | 'sealed_unreadable'
  | 'sealed_unsupported_version'
  | 'sealed_params_out_of_range'
  | 'sealed_kdf_unavailable_in_fips'
  | 'sealed_busy';

export class SealedFileError extends Error {
  readonly code: SealedErrorCode;
  constructor(code: SealedErrorCode, message: string) {
    super(message);
    this.name = 'SealedFileError';
    this.code = code;
  }
}

export interface SealedHeader {
  readonly v: 1;
  readonly kdf: 'scrypt' | 'pbkdf2-sha256';
  readonly logN?: number;
  readonly r?: number;
  readonly p?: number;
  readonly iter?: number;
  readonly salt: string;
  readonly wrap_nonce: string;
  readonly wrapped_key: string;
  readonly aead: 'chacha20-poly1305' | 'aes-256-gcm';
  readonly nonce: string;
  readonly created_at: string;
  readonly keychain_id: string;
  readonly source_fp: string;
  readonly epoch: number;
  readonly content_version: number;
  readonly parts: readonly string[];
}

let kdfJobs = 0;

async function deriveKey(passphrase: string, h: SealedHeader): Promise<Buffer> {
  if (kdfJobs >= MAX_KDF_JOBS)
    throw new SealedFileError(
      'sealed_busy',
      'two sealed files are being opened or made already; try again shortly',
    );
  kdfJobs += 1;
  try {
    const pass = Buffer.from(passphrase.normalize('NFC'), 'utf8');
    const salt = Buffer.from(h.salt, 'base64');
    return await new Promise<Buffer>((resolve, reject) => {
      const done = (err: Error | null, key: Buffer) => {
        pass.fill(0);
        if (err === null) resolve(key);
        else reject(err);
      };
      if (h.kdf === 'scrypt') {
        const N = 2 ** (h.logN ?? 0);
        scrypt(
          pass,
          salt,
          32,
          { N, r: h.r ?? 8, p: h.p ?? 1, maxmem: 256 * 1024 * 1024 + 128 * N * (h.r ?? 8) },
          done,
        );
      } else pbkdf2(pass, salt, h.iter ?? 0, 32, 'sha256', done);
    });
  } finally {
    kdfJobs -= 1;
  }
}

function aeadSeal(
  alg: SealedHeader['aead'],
  key: Buffer,
  nonce: Buffer,
  plain: Buffer,
  aad: Buffer,
): Buffer {
  const c =
    alg === 'chacha20-poly1305'
      ? createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 })
      : createCipheriv('aes-256-gcm' satisfies CipherGCMTypes, key, nonce, { authTagLength: 16 });
  c.setAAD(aad, { plaintextLength: plain.length });
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}

function aeadOpen(
  alg: SealedHeader['aead'],
  key: Buffer,
  nonce: Buffer,
  sealed: Buffer,
  aad: Buffer,
): Buffer {
  if (sealed.length < 16 || nonce.length !== 12) throw new Error('short');
  const d =
    alg === 'chacha20-poly1305'
      ? createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 })
      : createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
  d.setAAD(aad, { plaintextLength: sealed.length - 16 });
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
}

/** What the wrapped key's AEAD authenticates: the magic and the header without the key itself. */
function wrapAad(h: SealedHeader): Buffer {
  const { wrapped_key: _k, ...rest } = h;
  return Buffer.from(`${SEALED_MAGIC}\n${canonicalJson(rest)}`, 'utf8');
}

function payloadKey(fileKey: Buffer, h: SealedHeader): Buffer {
  return Buffer.from(
    hkdfSync('sha256', fileKey, Buffer.from(h.nonce, 'base64'), `${SEALED_MAGIC} payload`, 32),
  );
}

/** Seals `plaintext` (canonical JSON of the parts and their signed manifest). */
export async function sealFile(
  plaintext: Buffer,
  passphrase: string,
  meta: Pick<
    SealedHeader,
    'keychain_id' | 'source_fp' | 'epoch' | 'content_version' | 'parts' | 'created_at'
  >,
  fips: boolean,
): Promise<string> {
  const aead = fips ? 'aes-256-gcm' : 'chacha20-poly1305';
  const base = {
    v: 1 as const,
    ...(fips
      ? { kdf: 'pbkdf2-sha256' as const, iter: SEAL_PBKDF2_ITER }
      : { kdf: 'scrypt' as const, ...SEAL_SCRYPT }),
    salt: randomBytes(32).toString('base64'),
    wrap_nonce: randomBytes(12).toString('base64'),
    aead,
    nonce: randomBytes(12).toString('base64'),
    ...meta,
  } satisfies Omit<SealedHeader, 'wrapped_key'>;
  const passKey = await deriveKey(passphrase, { ...base, wrapped_key: '' });
  const fileKey = randomBytes(32);
  const wrapped = aeadSeal(
    aead,
    passKey,
    Buffer.from(base.wrap_nonce, 'base64'),
    fileKey,
    wrapAad({ ...base, wrapped_key: '' }),
  );
  const header: SealedHeader = { ...base, wrapped_key: wrapped.toString('base64') };
  const headerLine = canonicalJson(header);
  const body = aeadSeal(
    aead,
    payloadKey(fileKey, header),
    Buffer.from(header.nonce, 'base64'),
    plaintext,
    Buffer.from(`${SEALED_MAGIC}\n${headerLine}`, 'utf8'),
  );
  fileKey.fill(0);
  passKey.fill(0);
  return `${SEALED_MAGIC}\n${headerLine}\n${body.toString('base64')}\n`;
}

/** The header of a file, checked and bounded before any KDF runs. */
export function readHeader(
  text: string,
  fips: boolean,
): { header: SealedHeader; headerLine: string; body: string } {
  if (text.length > MAX_FILE_BYTES)
    throw new SealedFileError(
      'sealed_unreadable',
      'the file is too large to be a sealed keychain file',
    );
  const [magic, headerLine = '', body = ''] = text.replace(/\r\n/g, '\n').split('\n');
  if (magic !== SEALED_MAGIC) {
    if (magic?.startsWith('svc-keychain-sealed/') === true)
      throw new SealedFileError(
        'sealed_unsupported_version',
        `${magic} is a version this install cannot read`,
      );
    throw new SealedFileError('sealed_unreadable', 'this is not a sealed keychain file');
  }
  let h: SealedHeader;
  try {
    h = JSON.parse(headerLine) as SealedHeader;
  } catch {
    throw new SealedFileError('sealed_unreadable', 'the header does not read');
  }
  if (typeof h !== 'object' || h === null || h.v !== 1)
    throw new SealedFileError(
      'sealed_unsupported_version',
      'the header is of a version this install cannot read',
    );
  if (h.kdf === 'scrypt') {
    if (fips)
      throw new SealedFileError(
        'sealed_kdf_unavailable_in_fips',
        'the file was sealed with scrypt, which FIPS mode does not offer; seal it again on a FIPS install',
      );
    if (
      !Number.isInteger(h.logN) ||
      (h.logN ?? 0) < OPEN_LOGN.min ||
      (h.logN ?? 0) > OPEN_LOGN.max ||
      h.r !== 8 ||
      h.p !== 1
    )
      throw new SealedFileError(
        'sealed_params_out_of_range',
        `scrypt parameters must be logN ${String(OPEN_LOGN.min)}–${String(OPEN_LOGN.max)}, r 8, p 1`,
      );
  } else if (h.kdf === 'pbkdf2-sha256') {
    if (!Number.isInteger(h.iter) || (h.iter ?? 0) < OPEN_ITER.min || (h.iter ?? 0) > OPEN_ITER.max)
      throw new SealedFileError(
        'sealed_params_out_of_range',
        'PBKDF2 iterations must be 100,000 to 10,000,000',
      );
  } else
    throw new SealedFileError(
      'sealed_unsupported_version',
      'the file names a KDF this install does not know',
    );
  if (h.aead !== 'chacha20-poly1305' && h.aead !== 'aes-256-gcm')
    throw new SealedFileError(
      'sealed_unsupported_version',
      'the file names a cipher this install does not know',
    );
  // Every field of the right type and exact size before anything is decoded or derived.
  const b64 = (v: unknown, bytes: number): boolean =>
    typeof v === 'string' &&
    v.length === Math.ceil(bytes / 3) * 4 &&
    /^[A-Za-z0-9+/]+={0,2}$/.test(v) &&
    Buffer.from(v, 'base64').length === bytes;
  const fieldsHold =
    b64(h.salt, 32) &&
    b64(h.wrap_nonce, 12) &&
    b64(h.wrapped_key, 48) &&
    b64(h.nonce, 12) &&
    typeof h.keychain_id === 'string' &&
    h.keychain_id.length <= 200 &&
    typeof h.source_fp === 'string' &&
    h.source_fp.length <= 64 &&
    Number.isInteger(h.epoch) &&
    Number.isInteger(h.content_version) &&
    h.content_version >= 1 &&
    typeof h.created_at === 'string' &&
    Array.isArray(h.parts) &&
    h.parts.length <= 16 &&
    h.parts.every((p) => typeof p === 'string' && p.length <= 32);
  if (!fieldsHold)
    throw new SealedFileError(
      'sealed_unreadable',
      'the header does not hold the fields of a sealed keychain file',
    );
  if (body.length > MAX_FILE_BYTES || !/^[A-Za-z0-9+/]*={0,2}$/.test(body))
    throw new SealedFileError('sealed_unreadable', 'the body is not base64');
  if (fips && h.aead !== 'aes-256-gcm')
    throw new SealedFileError(
      'sealed_kdf_unavailable_in_fips',
      'the file is sealed with ChaCha20-Poly1305, which FIPS mode does not offer',
    );
  return { header: h, headerLine, body };
}

/** The plaintext; a wrong passphrase and a damaged file are the same error, as AEAD cannot tell them apart. */
export async function openFile(
  text: string,
  passphrase: string,
  fips: boolean,
): Promise<{ header: SealedHeader; plaintext: Buffer }> {
  const { header, headerLine, body } = readHeader(text, fips);
  const unreadable = () =>
    new SealedFileError('sealed_unreadable', 'wrong passphrase, or the file was changed');
  const passKey = await deriveKey(passphrase, header);
  try {
    let fileKey: Buffer;
    try {
      fileKey = aeadOpen(
        header.aead,
        passKey,
        Buffer.from(header.wrap_nonce, 'base64'),
        Buffer.from(header.wrapped_key, 'base64'),
        wrapAad(header),
      );
    } catch {
      throw unreadable();
    }
    try {
      const plaintext = aeadOpen(
        header.aead,
        payloadKey(fileKey, header),
        Buffer.from(header.nonce, 'base64'),
        Buffer.from(body, 'base64'),
        Buffer.from(`${SEALED_MAGIC}\n${headerLine}`, 'utf8'),
      );
      return { header, plaintext };
    } catch {
      throw unreadable();
    } finally {
      fileKey.fill(0);
    }
  } finally {
    passKey.fill(0);
  }
}
