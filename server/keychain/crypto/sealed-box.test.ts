// Sealing to an agreement key: round trips in both modes, the key derivation as documented
// (checked by opening a box by hand), and every kind of damage or junk giving the same
// SealedBoxError and nothing else.
import {
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
} from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  exportAgreementPublic,
  generateAgreementKey,
  importAgreementPublic,
  openSealed,
  sealTo,
  SealedBoxError,
  type SealedBox,
} from './sealed-box.js';

const AAD = Buffer.from('enrol\0kc_x\0FINGERPRINT');
const PLAIN = Buffer.from('{"secret":"part"}');

/** Runs `fn` and returns what it threw, asserting it was the one SealedBoxError. */
function unreadable(fn: () => unknown): SealedBoxError {
  let thrown: unknown = null;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(SealedBoxError);
  expect(thrown).toMatchObject({ message: 'unreadable', code: 'unreadable' });
  return thrown as SealedBoxError;
}

/** `field` decoded, one bit flipped at byte `at`, encoded again. */
function flipped(box: SealedBox, field: 'epk' | 'nonce' | 'ct', at: number): SealedBox {
  const raw = Buffer.from(box[field], 'base64url');
  const i = at < 0 ? raw.length + at : at;
  raw[i] = (raw[i] ?? 0) ^ 0x01;
  return { ...box, [field]: raw.toString('base64url') };
}

describe.each([
  ['X25519 + ChaCha20-Poly1305', false, 'chacha20-poly1305', 'x25519'],
  ['P-256 + AES-256-GCM (FIPS)', true, 'aes-256-gcm', 'p256'],
] as const)('a sealed box, %s', (_name, fips, aead, prefix) => {
  const me = generateAgreementKey(fips);
  const other = generateAgreementKey(fips);
  const otherMode = generateAgreementKey(!fips);
  const text = exportAgreementPublic(me.publicKey);
  const sealed = sealTo(importAgreementPublic(text), PLAIN, AAD);

  it('opens what was sealed to it, with the same additional data', () => {
    expect(openSealed(me.privateKey, sealed, AAD)).toEqual(PLAIN);
    expect(Object.keys(sealed).sort()).toEqual(['alg', 'ct', 'epk', 'nonce']);
    expect(sealed.alg).toBe(aead);
    expect(JSON.parse(JSON.stringify(sealed))).toEqual(sealed);
    expect(Buffer.from(sealed.nonce, 'base64url')).toHaveLength(12);
    expect(Buffer.from(sealed.ct, 'base64url')).toHaveLength(PLAIN.length + 16);
  });

  it('seals empty and large payloads, and to a private key given as the recipient', () => {
    expect(openSealed(me.privateKey, sealTo(me.publicKey, Buffer.alloc(0), AAD), AAD)).toEqual(
      Buffer.alloc(0),
    );
    const big = Buffer.alloc(64 * 1024, 0x5a);
    expect(openSealed(me.privateKey, sealTo(me.publicKey, big, AAD), AAD)).toEqual(big);
    expect(
      openSealed(me.privateKey, sealTo(me.privateKey, PLAIN, Buffer.alloc(0)), Buffer.alloc(0)),
    ).toEqual(PLAIN);
  });

  it('uses a fresh ephemeral key and nonce for every box', () => {
    const again = sealTo(me.publicKey, PLAIN, AAD);
    expect(again.epk).not.toBe(sealed.epk);
    expect(again.nonce).not.toBe(sealed.nonce);
    expect(again.ct).not.toBe(sealed.ct);
  });

  it('exports the public key with its kind, the same from either half, and reads it back', () => {
    expect(text).toMatch(new RegExp(`^${prefix}:[A-Za-z0-9_-]+$`));
    expect(exportAgreementPublic(me.privateKey)).toBe(text);
    expect(exportAgreementPublic(importAgreementPublic(text))).toBe(text);
    expect(importAgreementPublic(text).type).toBe('public');
  });

  it('derives its key as documented: HKDF-SHA256 over the tag and both public keys', () => {
    const epk = Buffer.from(sealed.epk, 'base64url');
    const nonce = Buffer.from(sealed.nonce, 'base64url');
    const ct = Buffer.from(sealed.ct, 'base64url');
    const recipient = me.publicKey.export({ type: 'spki', format: 'der' });
    const shared = diffieHellman({
      privateKey: me.privateKey,
      publicKey: createPublicKey({ key: epk, format: 'der', type: 'spki' }),
    });
    const info = Buffer.concat([
      Buffer.from('svc-keychain/box/v1\0'),
      epk,
      Buffer.from([0]),
      recipient,
    ]);
    const key = Buffer.from(hkdfSync('sha256', shared, nonce, info, 32));
    const d =
      aead === 'aes-256-gcm'
        ? createDecipheriv(aead, key, nonce, { authTagLength: 16 })
        : createDecipheriv(aead, key, nonce, { authTagLength: 16 });
    d.setAAD(AAD, { plaintextLength: ct.length - 16 });
    d.setAuthTag(ct.subarray(-16));
    expect(Buffer.concat([d.update(ct.subarray(0, -16)), d.final()])).toEqual(PLAIN);
  });

  it('refuses the wrong key, a key of the other mode, and a public key', () => {
    unreadable(() => openSealed(other.privateKey, sealed, AAD));
    unreadable(() => openSealed(otherMode.privateKey, sealed, AAD));
    unreadable(() => openSealed(me.publicKey, sealed, AAD));
  });

  it('refuses other additional data', () => {
    unreadable(() => openSealed(me.privateKey, sealed, Buffer.from('other')));
    unreadable(() => openSealed(me.privateKey, sealed, Buffer.alloc(0)));
    unreadable(() => openSealed(me.privateKey, sealed, Buffer.concat([AAD, Buffer.from([0])])));
  });

  it.each([
    ['epk', 0],
    ['epk', 12],
    ['epk', -1],
    ['nonce', 0],
    ['nonce', -1],
    ['ct', 0],
    ['ct', -17],
    ['ct', -1],
  ] as const)('refuses a bit flipped in %s at byte %i', (field, at) => {
    unreadable(() => openSealed(me.privateKey, flipped(sealed, field, at), AAD));
  });

  it('refuses another alg, a truncated or extended ciphertext, and swapped fields', () => {
    for (const alg of ['chacha20-poly1305', 'aes-256-gcm', 'none', ''].filter((a) => a !== aead))
      unreadable(() => openSealed(me.privateKey, { ...sealed, alg }, AAD));
    const ct = Buffer.from(sealed.ct, 'base64url');
    for (const body of [
      ct.subarray(0, -1),
      ct.subarray(0, 15),
      Buffer.concat([ct, ct.subarray(0, 1)]),
    ])
      unreadable(() =>
        openSealed(me.privateKey, { ...sealed, ct: body.toString('base64url') }, AAD),
      );
    const second = sealTo(me.publicKey, PLAIN, AAD);
    unreadable(() => openSealed(me.privateKey, { ...sealed, epk: second.epk }, AAD));
    unreadable(() => openSealed(me.privateKey, { ...sealed, nonce: second.nonce }, AAD));
  });

  it('throws only SealedBoxError on malformed input', () => {
    const edSpki = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
    const zeroPoint = Buffer.from(sealed.epk, 'base64url');
    zeroPoint.fill(0, zeroPoint.length - 32);
    const junk: unknown[] = [
      null,
      undefined,
      1,
      'x',
      [],
      {},
      Object.create(sealed) as unknown,
      { alg: aead },
      { ...sealed, epk: undefined },
      { ...sealed, nonce: 12 },
      { ...sealed, ct: null },
      { ...sealed, epk: '!!' },
      { ...sealed, epk: `${sealed.epk}=` },
      { ...sealed, nonce: `${sealed.nonce}==` },
      { ...sealed, nonce: sealed.nonce.slice(1) },
      { ...sealed, ct: '' },
      { ...sealed, ct: `${sealed.ct} ` },
      { ...sealed, ct: sealed.ct.replace(/^./, '+') },
      { ...sealed, epk: 'A'.repeat(200_000) },
      { ...sealed, epk: sealTo(otherMode.publicKey, PLAIN, AAD).epk },
      { ...sealed, epk: zeroPoint.toString('base64url') }, // an all-zero X25519 point
      { ...sealed, epk: edSpki.toString('base64url') }, // a signing key, not an agreement key
    ];
    for (const box of junk) unreadable(() => openSealed(me.privateKey, box, AAD));
  });
});

describe('agreement public keys', () => {
  it('refuses text that is not an exported agreement key, with SealedBoxError only', () => {
    const x = exportAgreementPublic(generateAgreementKey(false).publicKey);
    const p = exportAgreementPublic(generateAgreementKey(true).publicKey);
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
    for (const text of [
      '',
      'x25519:',
      'rsa:AAAA',
      `p256:${'A'.repeat(122)}`,
      `x25519:${ed.toString('base64url')}`, // an Ed25519 key under the X25519 name
      `p256:${x.slice(7)}`, // the kinds swapped
      `x25519:${p.slice(5)}`,
      `${x}=`,
      `${x} `,
      x.toUpperCase(),
      `x25519:${x.slice(7).replace(/^./, '/')}`,
      undefined as unknown as string,
      42 as unknown as string,
    ])
      unreadable(() => importAgreementPublic(text));
  });

  it('refuses to export or seal to keys that are not agreement keys', () => {
    const ed = generateKeyPairSync('ed25519');
    expect(() => exportAgreementPublic(ed.publicKey)).toThrow(TypeError);
    expect(() => sealTo(ed.publicKey, PLAIN, AAD)).toThrow(TypeError);
  });
});
