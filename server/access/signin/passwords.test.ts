import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, SCRYPT, verifyPassword } from './passwords.js';

describe('password hashes', () => {
  it("are scrypt at OWASP's parameters of today: N = 2^17, r = 8, p = 1", async () => {
    expect(SCRYPT).toMatchObject({ N: 2 ** 17, r: 8, p: 1 });
    const hash = await hashPassword('correct horse battery staple');
    expect(hash.split('$').slice(0, 4)).toEqual(['scrypt', '131072', '8', '1']);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it('a hash made at weaker parameters still verifies and asks to be made again', async () => {
    const old = await hashPassword('correct horse battery staple', { N: 2 ** 15, r: 8, p: 1 });
    expect(old.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse battery staple', old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
  });
});
