import { randomBytes } from 'node:crypto';

/** A secret token, URL-safe, 256 bits. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}
