// The 6-digit code both sides of an install request show (licence.md §3.7): a comparison aid in
// the Matrix SAS style, not a secret. It catches a mis-pasted, cut, edited or swapped text; the
// strong binding is N's signature and the grant's req_id, nonce and install key.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const CODE_KEY = 'svc-install-code/1';

/**
 * The code of a signed text: HMAC-SHA256(key "svc-install-code/1", SHA-256(payload ‖ signature))
 * truncated as RFC 4226 does, written "418 207". `sig` is the raw signature bytes.
 */
export function installCode(payload: Buffer, sig: Buffer): string {
  const digest = createHash('sha256').update(payload).update(sig).digest();
  const h = createHmac('sha256', CODE_KEY).update(digest).digest();
  const o = (h[31] ?? 0) & 0x0f;
  const bin =
    (((h[o] ?? 0) & 0x7f) << 24) |
    ((h[o + 1] ?? 0) << 16) |
    ((h[o + 2] ?? 0) << 8) |
    (h[o + 3] ?? 0);
  const digits = String(bin % 1_000_000).padStart(6, '0');
  return `${digits.slice(0, 3)} ${digits.slice(3)}`;
}

/**
 * Whether a typed code is `expected` ("418 207"), typed with or without the space (and with
 * spaces around); the digits are compared in constant time.
 */
export function codeMatches(typed: unknown, expected: string): boolean {
  if (typeof typed !== 'string') return false;
  const m = /^\s*(\d{3}) ?(\d{3})\s*$/.exec(typed);
  const want = /^(\d{3}) (\d{3})$/.exec(expected);
  if (m === null || want === null) return false;
  const a = Buffer.from(`${m[1] ?? ''}${m[2] ?? ''}`, 'ascii');
  const b = Buffer.from(`${want[1] ?? ''}${want[2] ?? ''}`, 'ascii');
  return a.length === b.length && timingSafeEqual(a, b);
}
