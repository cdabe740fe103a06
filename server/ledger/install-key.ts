// The install key: the identity of an install's data folder. It signs ledger seals (and, later,
// keychain requests and usage statements).
//
// - `install-key.pem`: Ed25519, PKCS#8 PEM, made at first start. Its public key's SHA-256, in
//   base32, is the key fingerprint that peers pin and people compare in full.
// - `install-key-p256.pem`: ECDSA P-256, beside it, made when SVC_FIPS=1; seals then use it, but
//   the fingerprint stays the Ed25519 one so the install's identity does not change with FIPS.
//
// Files are private to the service user (0600). A new key is written to a temporary file, synced,
// then hard-linked into place: link() fails if the name exists (like the 'wx' flag), so two
// processes starting at once cannot both create a key, and a crash never leaves a half-written
// key file under the real name.

import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  hash,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  rawEd25519PublicKey,
  sealAlgorithmOf,
  type SealAlgorithm,
  type SealKey,
} from './checkpoint.js';

export const INSTALL_KEY_FILE = 'install-key.pem';
export const INSTALL_KEY_P256_FILE = 'install-key-p256.pem';

const PRIVATE_MODE = 0o600;
/** POSIX permissions are not enforceable on Windows, where the desktop build may run. */
const CHECK_MODES = process.platform !== 'win32';

export interface InstallKey extends SealKey {
  /** base32 SHA-256 of the Ed25519 public key: the install's identity, always Ed25519. */
  fingerprint: string;
  /** Whether this call created a key file: a new identity or seal key, worth a ledger event. */
  created: boolean;
  /** The Ed25519 private key, whatever seals: install requests and grants are signed with it. */
  identityKey: KeyObject;
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, without padding. */
export function base32(buf: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = ((value << 8) | byte) & 0xffff; // at most 12 live bits; mask keeps it small
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(value >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function fileFor(algorithm: SealAlgorithm): string {
  return algorithm === 'ed25519' ? INSTALL_KEY_FILE : INSTALL_KEY_P256_FILE;
}

function isCode(err: unknown, codes: ReadonlySet<string> | string): boolean {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  return typeof codes === 'string' ? code === codes : codes.has(code);
}

/** Makes sure no one but the owner can read the key, whoever loosened it. */
function tightenMode(path: string): void {
  if (!CHECK_MODES) return;
  const mode = statSync(path).mode & 0o777;
  if ((mode & ~PRIVATE_MODE) !== 0) chmodSync(path, PRIVATE_MODE);
}

/** Reads and checks a key file; undefined when it does not exist. */
function readPrivateKey(path: string, algorithm: SealAlgorithm): KeyObject | undefined {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    throw new Error(`cannot read the install key ${path}: ${(err as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new Error(
      `the install key ${path} is not a readable PEM private key (${(err as Error).message}); ` +
        'restore it from a backup: replacing it changes the identity of this install',
    );
  }
  let actual: string;
  try {
    actual = sealAlgorithmOf(key);
  } catch {
    actual = key.asymmetricKeyType ?? 'unknown';
  }
  if (actual !== algorithm) {
    throw new Error(`the install key ${path} holds a key of type ${actual}, expected ${algorithm}`);
  }
  return key;
}

function fsyncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** File systems without hard links (some network and FAT volumes) answer link() with these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** Writes `pem` to a new file (never over an existing one), private, and syncs it. */
function writePrivateFile(path: string, pem: string): void {
  writeFileSync(path, pem, { mode: PRIVATE_MODE, flag: 'wx' });
  fsyncPath(path, 'r');
}

/** Writes a new key durably; returns false when another process created one first. */
function writeNewKey(dataDir: string, path: string, pem: string): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writePrivateFile(tmp, pem);
    try {
      linkSync(tmp, path);
    } catch (err) {
      if (!isCode(err, NO_HARD_LINKS)) throw err;
      writePrivateFile(path, pem); // still exclusive ('wx'), only not atomic
    }
  } catch (err) {
    if (isCode(err, 'EEXIST')) return false;
    throw new Error(`cannot create the install key ${path}: ${(err as Error).message}`);
  } finally {
    rmSync(tmp, { force: true });
  }
  // Sync the folder too, so the new name itself survives a power loss.
  if (process.platform !== 'win32') fsyncPath(dataDir, 'r');
  return true;
}

function generatePem(algorithm: SealAlgorithm): string {
  const { privateKey } =
    algorithm === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** Loads the key of one algorithm, creating it on first use. */
function loadOrCreate(
  dataDir: string,
  algorithm: SealAlgorithm,
): { key: KeyObject; created: boolean } {
  const path = join(dataDir, fileFor(algorithm));
  const existing = readPrivateKey(path, algorithm);
  if (existing) {
    tightenMode(path);
    return { key: existing, created: false };
  }
  const created = writeNewKey(dataDir, path, generatePem(algorithm));
  const key = readPrivateKey(path, algorithm); // read back what is on disk, ours or the winner's
  if (!key) throw new Error(`the install key ${path} vanished right after it was written`);
  tightenMode(path);
  return { key, created };
}

/** The key fingerprint: base32 (no padding) of SHA-256 of the raw Ed25519 public key. */
export function keyFingerprint(ed25519Key: KeyObject): string {
  return base32(hash('sha256', rawEd25519PublicKey(ed25519Key), 'buffer'));
}

/**
 * Loads the install key from `dataDir`, creating it at first start. Returns the seal key (P-256
 * when `fips`, else Ed25519) with the install's key fingerprint (always from the Ed25519 key).
 */
export function loadOrCreateInstallKey(
  dataDir: string,
  options: { fips: boolean; name: string },
): InstallKey {
  const ed25519 = loadOrCreate(dataDir, 'ed25519');
  const fingerprint = keyFingerprint(ed25519.key);
  const seal = options.fips ? loadOrCreate(dataDir, 'ecdsa-p256') : ed25519;
  return {
    algorithm: options.fips ? 'ecdsa-p256' : 'ed25519',
    name: options.name,
    privateKey: seal.key,
    publicKey: createPublicKey(seal.key),
    fingerprint,
    created: ed25519.created || seal.created,
    identityKey: ed25519.key,
  };
}

/** The keychain's key-agreement key: secrets from peers are sealed to it (X25519, or P-256 in FIPS mode). */
export const AGREEMENT_KEY_FILES = {
  x25519: 'keychain-kx.pem',
  p256: 'keychain-kx-p256.pem',
} as const;

/**
 * Loads the key-agreement private key from `dataDir`, creating it at first use with the same
 * care as the install key (private, synced, never over an existing file).
 */
export function loadOrCreateAgreementKey(dataDir: string, fips: boolean): KeyObject {
  const kind = fips ? 'p256' : 'x25519';
  const path = join(dataDir, AGREEMENT_KEY_FILES[kind]);
  const read = (): KeyObject | null => {
    let pem: string;
    try {
      pem = readFileSync(path, 'utf8');
    } catch (err) {
      if (isCode(err, 'ENOENT')) return null;
      throw err;
    }
    const key = createPrivateKey(pem);
    const type = key.asymmetricKeyType === 'ec' ? 'p256' : key.asymmetricKeyType;
    if (type !== kind)
      throw new Error(`the keychain key ${path} holds a ${String(type)} key, expected ${kind}`);
    return key;
  };
  const existing = read();
  if (existing !== null) {
    tightenMode(path);
    return existing;
  }
  const { privateKey } =
    kind === 'x25519'
      ? generateKeyPairSync('x25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeNewKey(dataDir, path, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const key = read();
  if (key === null) throw new Error(`the keychain key ${path} vanished right after it was written`);
  tightenMode(path);
  return key;
}

/** The public seal key for verifiers, which must never create keys; throws when it is missing. */
export function publicKeyFromDataDir(dataDir: string, algorithm: SealAlgorithm): KeyObject {
  const path = join(dataDir, fileFor(algorithm));
  const key = readPrivateKey(path, algorithm);
  if (!key) {
    throw new Error(
      `no ${algorithm} install key at ${path}: this data folder has never been started` +
        (algorithm === 'ecdsa-p256' ? ' with SVC_FIPS=1' : ''),
    );
  }
  return createPublicKey(key);
}
