import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rawEd25519PublicKey, signCheckpoint, verifyCheckpoint } from './checkpoint.js';
import {
  base32,
  INSTALL_KEY_FILE,
  INSTALL_KEY_P256_FILE,
  loadOrCreateInstallKey,
  publicKeyFromDataDir,
} from './install-key.js';

const posixOnly = it.skipIf(process.platform === 'win32');
const NAME = 'svc.ledger/test';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'install-key-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string): number => statSync(join(dir, file)).mode & 0o777;
const spki = (key: KeyObject): string =>
  key.export({ type: 'spki', format: 'der' }).toString('hex');

describe('base32', () => {
  it('matches the RFC 4648 test vectors, without padding', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [input, output] of vectors) expect(base32(Buffer.from(input))).toBe(output);
    expect(base32(Buffer.alloc(5, 0xff))).toBe('77777777');
  });
});

describe('loadOrCreateInstallKey', () => {
  posixOnly('creates an Ed25519 key, private to the owner, at first start', () => {
    const key = loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    expect(key).toMatchObject({ algorithm: 'ed25519', name: NAME, created: true });
    expect(key.privateKey.asymmetricKeyType).toBe('ed25519');
    expect(modeOf(INSTALL_KEY_FILE)).toBe(0o600);
    expect(readdirSync(dir)).toEqual([INSTALL_KEY_FILE]); // no P-256 key, no temporary file left
  });

  it('loads the same key on later calls', () => {
    const first = loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    const second = loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    expect(second.created).toBe(false);
    expect(spki(second.publicKey)).toBe(spki(first.publicKey));
    expect(second.fingerprint).toBe(first.fingerprint);
  });

  posixOnly('puts a key file readable by others back to 0600', () => {
    loadOrCreateInstallKey(dir, { fips: true, name: NAME });
    chmodSync(join(dir, INSTALL_KEY_FILE), 0o644);
    chmodSync(join(dir, INSTALL_KEY_P256_FILE), 0o640);
    expect(loadOrCreateInstallKey(dir, { fips: true, name: NAME }).created).toBe(false);
    expect(modeOf(INSTALL_KEY_FILE)).toBe(0o600);
    expect(modeOf(INSTALL_KEY_P256_FILE)).toBe(0o600);
  });

  posixOnly('leaves a stricter mode alone', () => {
    loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    chmodSync(join(dir, INSTALL_KEY_FILE), 0o400);
    loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    expect(modeOf(INSTALL_KEY_FILE)).toBe(0o400);
  });

  posixOnly('with fips, seals with a P-256 key beside the Ed25519 identity', () => {
    const plain = loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    const fips = loadOrCreateInstallKey(dir, { fips: true, name: NAME });
    expect(fips).toMatchObject({
      algorithm: 'ecdsa-p256',
      created: true,
      fingerprint: plain.fingerprint,
    });
    expect(fips.privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(modeOf(INSTALL_KEY_P256_FILE)).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual([INSTALL_KEY_P256_FILE, INSTALL_KEY_FILE].sort());
    expect(loadOrCreateInstallKey(dir, { fips: true, name: NAME }).created).toBe(false);
  });

  it('makes keys that seal and verify', () => {
    for (const fips of [false, true]) {
      const key = loadOrCreateInstallKey(dir, { fips, name: NAME });
      const hash = createHash('sha256').update('x').digest();
      const body = {
        origin: NAME,
        size: 9,
        root: hash,
        segment: 1,
        digest: hash,
        firstSeq: 1,
        prevSealHash: null,
      };
      const note = signCheckpoint(body, key);
      const algorithm = fips ? 'ecdsa-p256' : 'ed25519';
      expect(verifyCheckpoint(note, publicKeyFromDataDir(dir, algorithm), NAME)).toEqual({
        ok: true,
        body,
      });
    }
  });

  it('has a stable 52-character base32 fingerprint of the Ed25519 public key', () => {
    const key = loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    expect(key.fingerprint).toMatch(/^[A-Z2-7]{52}$/);
    const digest = createHash('sha256').update(rawEd25519PublicKey(key.publicKey)).digest();
    expect(key.fingerprint).toBe(base32(digest));
    expect(loadOrCreateInstallKey(dir, { fips: true, name: 'other' }).fingerprint).toBe(
      key.fingerprint,
    );
  });

  it('refuses a damaged key file instead of replacing the identity', () => {
    writeFileSync(join(dir, INSTALL_KEY_FILE), '-----BEGIN PRIVATE KEY-----\ntruncated', {
      mode: 0o600,
    });
    expect(() => loadOrCreateInstallKey(dir, { fips: false, name: NAME })).toThrow(
      /install-key\.pem is not a readable PEM private key.*restore it from a backup/,
    );
  });

  it('refuses a key of the wrong type', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
    writeFileSync(join(dir, INSTALL_KEY_FILE), pem, { mode: 0o600 });
    expect(() => loadOrCreateInstallKey(dir, { fips: false, name: NAME })).toThrow(
      /install-key\.pem holds a key of type ecdsa-p256, expected ed25519/,
    );
    expect(() => publicKeyFromDataDir(dir, 'ed25519')).toThrow(/expected ed25519/);
  });
});

describe('publicKeyFromDataDir', () => {
  it('throws a clear error and creates nothing when the key is missing', () => {
    expect(() => publicKeyFromDataDir(dir, 'ed25519')).toThrow(
      /no ed25519 install key at .*install-key\.pem/,
    );
    expect(() => publicKeyFromDataDir(dir, 'ecdsa-p256')).toThrow(
      /never been started with SVC_FIPS=1/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('returns the public half of the stored key', () => {
    const key = loadOrCreateInstallKey(dir, { fips: false, name: NAME });
    const pub = publicKeyFromDataDir(dir, 'ed25519');
    expect(pub.type).toBe('public');
    expect(spki(pub)).toBe(spki(key.publicKey));
  });
});
