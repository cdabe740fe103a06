import { describe, expect, it } from 'vitest';
import { codeMatches, commitment, commitmentHolds, newNonce, pairingCode } from './pairing-code.js';

const base = {
  keychainId: 'kc_x',
  requestId: 'pr_1',
  homePub: 'HOME',
  joinerPub: 'JOINER',
  homeNonce: 'a'.repeat(64),
  joinerNonce: 'b'.repeat(64),
};

describe('pairing code', () => {
  it('is six digits, the same on both sides, and changes with every input', () => {
    const code = pairingCode(base);
    expect(code).toMatch(/^\d{6}$/);
    expect(pairingCode({ ...base })).toBe(code);
    for (const k of Object.keys(base) as (keyof typeof base)[])
      expect(pairingCode({ ...base, [k]: `${base[k]}x` }), k).not.toBe(code);
  });

  it('spreads over the whole range (no digit stuck)', () => {
    const codes = Array.from({ length: 400 }, () =>
      pairingCode({ ...base, joinerNonce: newNonce() }),
    );
    expect(new Set(codes).size).toBeGreaterThan(390);
    expect(codes.some((c) => c.startsWith('0'))).toBe(true);
  });

  it('binds the commitment to both keys and the nonce', () => {
    const c = commitment('H', 'J', 'n1');
    expect(commitmentHolds(c, 'H', 'J', 'n1')).toBe(true);
    expect(commitmentHolds(c, 'H', 'J', 'n2')).toBe(false);
    expect(commitmentHolds(c, 'H', 'M', 'n1')).toBe(false);
    expect(commitmentHolds(c, 'M', 'J', 'n1')).toBe(false);
    expect(commitmentHolds('zz', 'H', 'J', 'n1')).toBe(false);
    // Length-prefixed: moving a character between fields changes the hash.
    expect(commitment('HJ', '', 'n1')).not.toBe(commitment('H', 'J', 'n1'));
  });

  it('compares typed codes exactly, forgiving spaces and dashes', () => {
    expect(codeMatches('123456', '123456')).toBe(true);
    expect(codeMatches('123 456', '123456')).toBe(true);
    expect(codeMatches('123-456', '123456')).toBe(true);
    expect(codeMatches('123457', '123456')).toBe(false);
    expect(codeMatches('12345', '123456')).toBe(false);
    expect(codeMatches('', '123456')).toBe(false);
  });
});
