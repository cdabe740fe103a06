// Sealing to an agreement key: round trips in both modes, and every kind of damage gives
// the same SealedBoxError and nothing else.
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

const AAD = Buffer.from('purpose\0kc_x\0FP');

describe.each([false, true])('sealed box (fips %s)', (fips) => {
  const me = generateAgreementKey(fips);
  const other = generateAgreementKey(fips);
  const pub = importAgreementPublic(exportAgreementPublic(me.privateKey));
  const sealed = sealTo(pub, Buffer.from('secret part'), AAD);

  it('opens what was sealed to it, with the same additional data', () => {
    expect(openSealed(me.privateKey, sealed, AAD).toString()).toBe('secret part');
    expect(sealed.alg).toBe(fips ? 'aes-256-gcm' : 'chacha20-poly1305');
    expect(exportAgreementPublic(me.publicKey)).toMatch(fips ? /^p256:/ : /^x25519:/);
  });

  it('refuses the wrong key, other additional data, and any changed field', () => {
    expect(() => openSealed(other.privateKey, sealed, AAD)).toThrow(SealedBoxError);
    expect(() => openSealed(me.privateKey, sealed, Buffer.from('other'))).toThrow(SealedBoxError);
    for (const field of ['epk', 'nonce', 'ct'] as const) {
      const raw = Buffer.from(sealed[field], 'base64url');
      raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
      const damaged: SealedBox = { ...sealed, [field]: raw.toString('base64url') };
      expect(() => openSealed(me.privateKey, damaged, AAD), field).toThrow(SealedBoxError);
    }
    expect(() => openSealed(me.privateKey, { ...sealed, alg: 'none' }, AAD)).toThrow(
      SealedBoxError,
    );
  });

  it('throws only SealedBoxError on malformed input', () => {
    for (const junk of [
      null,
      1,
      'x',
      {},
      { alg: 1 },
      { ...sealed, epk: '!!' },
      { ...sealed, ct: '' },
    ]) {
      expect(() => openSealed(me.privateKey, junk, AAD)).toThrow(SealedBoxError);
    }
    for (const text of ['', 'x25519:', 'rsa:AAAA', `p256:${'A'.repeat(60)}`])
      expect(() => importAgreementPublic(text)).toThrow(SealedBoxError);
  });
});
