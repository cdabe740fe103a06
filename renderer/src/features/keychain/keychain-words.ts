// The words the Keychain page puts on roles, health, site-key status, pairing, parts and
// refusals, and the small rules it reads the view with.
import { ApiError } from '../../shared/api.js';
import type { KeychainView } from './api.js';

/** The health words the home gives a member (the wire says a string). */
export type MemberHealth = 'ok' | 'silent' | 'gone';
/** A site key's status (the wire says a string). */
export type SiteKeyStatus = 'open' | 'used' | 'expired' | 'revoked' | 'locked';
/** A pairing request's state (the wire says a string). */
export type PairingState = 'open' | 'added' | 'failed' | 'cancelled' | 'expired';

/** While a pairing is under way here, the view is asked for every 2 s instead of every 15. */
export function pairingUnderWay(v: KeychainView | undefined): boolean {
  if (v === undefined) return false;
  if (v.joining?.state === 'open') return true;
  const p = v.pairing;
  return p !== null && (p.window?.open === true || p.requests.some((r) => r.state === 'open'));
}

/**
 * While a handover is open on the home (the member accepts without a ledger event here) or
 * offered to this member, the view is asked for every 2 s too.
 */
export function handoverUnderWay(v: KeychainView | undefined): boolean {
  const h = v?.handover;
  return h != null && (h.state === 'open' || h.state === 'offered');
}

/** The six digits of a typed code ("123456", "123 456" or "123-456"), or null. */
export function codeDigits(typed: string): string | null {
  const digits = typed.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** A code in two groups of three, for reading aloud and comparing: ["123", "456"]. */
export const codeGroups = (code: string): [string, string] => [code.slice(0, 3), code.slice(3)];

/** The request a seat is approved by: the part after `pairing:` or `site_key:`, or null. */
export function seatRequest(via: string): string | null {
  const m = /^(?:pairing|site_key):(.+)$/.exec(via);
  return m?.[1] ?? null;
}

/** The server's minimum for a sealed file's passphrase (server/keychain/sealed-file.ts). */
export const MIN_PASSPHRASE = 12;
/** What POST /v1/keychain/unseal takes at most. */
export const MAX_SEALED = 8 * 1024 * 1024;

/** The home's label, from the roster (the member whose fingerprint is the home's). */
export function homeLabel(v: KeychainView): string {
  const home = v.members.find((m) => m.fingerprint === v.home_fp || m.role === 'home');
  return home?.label ?? 'the home';
}

/** A fingerprint in groups of four for reading: ABCD-EFGH-… (the API takes it whole). */
export const fingerprintGroups = (fp: string): string[] => fp.match(/.{1,4}/g) ?? [fp];

/** Health as colour, shape and word: never colour alone. */
export const HEALTH_WORDS: Record<MemberHealth, { glyph: string; words: string; tone: string }> = {
  ok: { glyph: '●', words: 'ok', tone: 'ok' },
  silent: { glyph: '▲', words: 'silent', tone: 'warn' },
  gone: { glyph: '✕', words: 'gone', tone: 'fail' },
};

export const SITE_KEY_WORDS: Record<
  SiteKeyStatus,
  { glyph: string; words: string; tone: string; meaning: string }
> = {
  open: {
    glyph: '○',
    words: 'open',
    tone: 'ok',
    meaning: 'not used yet: a new site can join with it',
  },
  used: { glyph: '✓', words: 'used', tone: '', meaning: 'a site joined with it' },
  expired: { glyph: '⌛', words: 'expired', tone: 'warn', meaning: 'its time ran out unused' },
  revoked: { glyph: '✕', words: 'revoked', tone: 'warn', meaning: 'revoked before it was used' },
  locked: { glyph: '■', words: 'locked', tone: 'fail', meaning: 'five wrong secrets locked it' },
};

/** "quiet for 4 min": how long since the home last heard a member, coarse on purpose. */
export function quietText(seconds: number): string {
  if (seconds < 60) return 'heard in the last minute';
  const min = Math.floor(seconds / 60);
  if (min < 60) return `quiet for ${String(min)} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `quiet for ${String(h)} h`;
  return `quiet for ${String(Math.floor(h / 24))} days`;
}

/** How a member came in: "site key ABCD1234", "paired by code", "made the home". */
export function viaText(via: string): string {
  if (via.startsWith('site_key:')) return `site key ${via.slice('site_key:'.length)}`;
  if (via.startsWith('pairing:')) return 'paired by code';
  if (via === 'genesis') return 'made the home';
  if (via === 'roster') return 'the home’s roster';
  return via.replace(/_/g, ' ');
}

export const PART_WORDS: Record<string, string> = {
  licence: 'Licence',
  connections: 'Connections',
  mail: 'Mail',
  signin: 'Sign-in',
  people: 'People',
  policy: 'Policy',
  branding: 'Branding',
  numbers: 'Impact figures',
};

/** The sealed-file refusals in plain words (docs/keychain.md, "The sealed file"). */
const SEALED_WORDS: Record<string, string> = {
  sealed_unreadable:
    'The file could not be opened: the passphrase is wrong, or the file was changed or damaged. Nothing was applied.',
  sealed_rollback:
    'This file is older than one already applied here, so it was refused. Nothing was applied.',
  sealed_params_out_of_range:
    'This file asks for key-stretching settings outside the safe range, so it was not opened. Seal it again with this version.',
  sealed_kdf_unavailable_in_fips:
    'This install runs in FIPS mode and cannot open a file sealed with scrypt. Seal it again on a FIPS install.',
  sealed_busy: 'The install is busy opening other sealed files. Try again in a moment.',
};

/** A sealed-file refusal in words, or null for the others (shown as the server says them). */
export function sealedWords(err: unknown): string | null {
  if (!(err instanceof ApiError)) return null;
  const words = SEALED_WORDS[err.code];
  if (words === undefined) return null;
  return err.code === 'sealed_rollback' ? `${words} (${err.message})` : words;
}
