// Password hashes: scrypt from node:crypto at the OWASP Password Storage Cheat Sheet's
// parameters (N = 2^17, r = 8, p = 1: 128 MiB and some 0.2–0.5 s per hash). Stored as
// scrypt$N$r$p$salt$key (base64), so a hash made at older parameters still verifies and is
// made again at these ones at the next sign-in (needsRehash).
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;
export const SCRYPT = { N: 2 ** 17, r: 8, p: 1, keyLength: 32 } as const;
/** Stored parameters beyond these are refused: a hash must never cost more than it should. */
const MAX_N = 2 ** 20;

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

export async function hashPassword(
  password: string,
  params: { N: number; r: number; p: number } = SCRYPT,
): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = params;
  const key = await scrypt(password, salt, SCRYPT.keyLength, optionsOf(N, r, p));
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether `password` matches `stored`; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, key] = parts;
  const expected = Buffer.from(key ?? '', 'base64');
  if (expected.length < 16) return false;
  if (!(Number(n) <= MAX_N && Number(r) <= 32 && Number(p) <= 16)) return false;
  const got = await scrypt(
    password,
    Buffer.from(salt ?? '', 'base64'),
    expected.length,
    optionsOf(Number(n), Number(r), Number(p)),
  );
  return timingSafeEqual(got, expected);
}

/** Whether a stored hash was made at weaker parameters than today's (then hash it again). */
export function needsRehash(stored: string): boolean {
  const [kind, n, r, p] = stored.split('$');
  return kind !== 'scrypt' || Number(n) < SCRYPT.N || Number(r) < SCRYPT.r || Number(p) < SCRYPT.p;
}

/** A hash nobody's password matches: verified against when there is no account, so that
 * an unknown address takes as long as a known one. */
let dummy: Promise<string> | null = null;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64'));
  return dummy;
}
