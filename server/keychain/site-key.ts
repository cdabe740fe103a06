// Site keys (design/keychain.md §2.3): `skc1.<id>.<secret>.<home_fp>`, a public 8-character
// id, a 160-bit secret and the home's full fingerprint pinned inside, so that a new site
// refuses any other home. The home keeps only SHA-256("skc1" ‖ secret).
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32 } from '../ledger/index.js';

export const SITE_KEY_PREFIX = 'skc1';
const ID = /^[A-Z2-7]{8}$/;
const SECRET = /^[A-Z2-7]{32}$/;
const FINGERPRINT = /^[A-Z2-7]{52}$/;

export interface SiteKey {
  readonly id: string;
  readonly secret: string;
  readonly homeFp: string;
}

export function newSiteKey(homeFp: string): SiteKey & { text: string } {
  const id = base32(randomBytes(5));
  const secret = base32(randomBytes(20));
  return { id, secret, homeFp, text: `${SITE_KEY_PREFIX}.${id}.${secret}.${homeFp}` };
}

/** The key read back, or why it is not one (never echoing the secret). */
export function parseSiteKey(text: string): SiteKey | { error: string } {
  const parts = text.trim().split('.');
  if (parts.length !== 4 || parts[0] !== SITE_KEY_PREFIX)
    return { error: `a site key reads ${SITE_KEY_PREFIX}.<id>.<secret>.<home fingerprint>` };
  const [, id = '', secret = '', homeFp = ''] = parts;
  if (!ID.test(id)) return { error: 'the site key id is not 8 base32 characters' };
  if (!SECRET.test(secret)) return { error: 'the site key secret is not 32 base32 characters' };
  if (!FINGERPRINT.test(homeFp))
    return { error: 'the site key does not end with a full 52-character home fingerprint' };
  return { id, secret, homeFp };
}

export function secretHash(secret: string): string {
  return hash('sha256', `${SITE_KEY_PREFIX}${secret}`, 'hex');
}

/** Constant-time: a wrong secret takes as long as a right one. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(secretHash(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
