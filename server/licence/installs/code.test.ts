import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeMatches, installCode } from './code.js';

/** The same code written another way: RFC 4226's DT as a 31-bit big-endian read. */
function reference(payload: Buffer, sig: Buffer): string {
  const inner = createHash('sha256')
    .update(Buffer.concat([payload, sig]))
    .digest();
  const h = createHmac('sha256', Buffer.from('svc-install-code/1', 'utf8')).update(inner).digest();
  const o = h.readUInt8(31) & 0xf;
  const n = (h.readUInt32BE(o) & 0x7fffffff) % 1_000_000;
  const d = n.toString().padStart(6, '0');
  return `${d.slice(0, 3)} ${d.slice(3)}`;
}

describe('installCode', () => {
  it('is HMAC-SHA256 over SHA-256(payload ‖ signature), RFC 4226 truncation, written "ddd ddd"', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 64 }), (p, s) => {
        const code = installCode(Buffer.from(p), Buffer.from(s));
        expect(code).toMatch(/^\d{3} \d{3}$/);
        expect(code).toBe(reference(Buffer.from(p), Buffer.from(s)));
      }),
      { numRuns: 500 },
    );
  });

  it('changes with the payload and with the signature', () => {
    const p = Buffer.from('{"format":"svc-install-request/1"}');
    const s = Buffer.alloc(64, 1);
    const codes = new Set([
      installCode(p, s),
      installCode(Buffer.from('{"format":"svc-install-request/2"}'), s),
      installCode(p, Buffer.alloc(64, 2)),
    ]);
    expect(codes.size).toBe(3);
  });
});

describe('codeMatches', () => {
  it('accepts the code typed with or without the space, spaces around tolerated', () => {
    for (const typed of ['418 207', '418207', ' 418207 ', '\t418 207\n']) {
      expect(codeMatches(typed, '418 207'), typed).toBe(true);
    }
  });

  it('refuses other digits, other spacing and non-strings', () => {
    for (const typed of ['418 208', '418-207', '41 8207', '4182070', '41820', '', '418  207']) {
      expect(codeMatches(typed, '418 207'), typed).toBe(false);
    }
    expect(codeMatches(418207, '418 207')).toBe(false);
    expect(codeMatches(null, '418 207')).toBe(false);
    expect(codeMatches('418207', 'nonsense')).toBe(false);
  });
});
