// Password hashes: scrypt from node:crypto with memory-hard parameters (N = 2^15, r = 8,
// p = 1: 32 MiB and some 50–100 ms per hash). Stored as scrypt$N$r$p$salt$key (base64).
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;
export const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 } as const;

function scrypt(
  password: string,
  salt: Buffer,
  keyLength: number,
  o: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFC'), salt, keyLength, o, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

const optionsOf = (N: number, r: number, p: number): ScryptOptions => ({
  N,
  r,
  p,
  // 128 * N * r bytes are needed; leave head room.
  maxmem: 256 * N * r + 1024 * 1024,
});

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keyLength } = SCRYPT;
  const key = await scrypt(password, salt, keyLength, optionsOf(N, r, p));
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether `password` matches `stored`; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, key] = parts;
  const expected = Buffer.from(key ?? '', 'base64');
  if (expected.length < 16) return false;
  const got = await scrypt(
    password,
    Buffer.from(salt ?? '', 'base64'),
    expected.length,
    optionsOf(Number(n), Number(r), Number(p)),
  );
  return timingSafeEqual(got, expected);
}

/** A hash nobody's password matches: verified against when there is no account, so that
 * an unknown address takes as long as a known one. */
let dummy: Promise<string> | null = null;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64'));
  return dummy;
}
