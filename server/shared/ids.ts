import { randomBytes } from 'node:crypto';

/** Random hex of `bytes` bytes. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A secret token, URL-safe, 256 bits. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}
