// The keychain (docs/keychain.md): the wire shapes of GET /v1/keychain and its actions, their
// calls and query key, and the words the Keychain page puts on roles, health, site-key status,
// parts and refusals. Site keys and sealed files are answers of actions (mutations), never
// queries: a key is shown once and must not outlive the page in a cache.
import { ApiError, call } from '../../shared/api.js';

export type KeychainRole = 'none' | 'home' | 'member';
export type MemberHealth = 'ok' | 'silent' | 'gone';
export type SiteKeyStatus = 'open' | 'used' | 'expired' | 'revoked' | 'locked';

export interface KeychainMember {
  label: string;
  fingerprint: string;
  fp_short: string;
  role: string;
  this: boolean;
  health: string;
  quiet_s: number;
  via: string;
  address: string | null;
  added_at: string;
  /** Holds a licence seat; one paired by code (or with a site key without one) waits for Approve seat. */
  licensed: boolean;
}

export type PairingState = 'open' | 'added' | 'failed' | 'cancelled' | 'expired';

/** On the home: an install asking to pair, with the code this home shows for it. */
export interface PairingRequest {
  request_id: string;
  fingerprint: string;
  fp_short: string;
  label: string;
  address: string | null;
  state: string;
  /** Six digits, once the install has given its part; null before, and once it ended. */
  code: string | null;
  home_confirmed: boolean;
  joiner_confirmed: boolean;
  expires_at: string;
}

/** On the home: the pairing window (null before the first) and the requests in it. */
export interface PairingView {
  window: { id: string; open: boolean; expires_at: string } | null;
  requests: PairingRequest[];
}

/** On an install asking a home to pair: its request (the latest), with the code it shows. */
export interface JoiningView {
  request_id: string;
  state: string;
  reason: string | null;
  code: string | null;
  home: { fingerprint: string; fp_short: string; label: string };
  address: string | null;
  /** The home's code was typed here. */
  confirmed: boolean;
  expires_at: string;
}

export interface SiteKeyRow {
  id: string;
  label: string;
  purpose: string;
  licence: boolean;
  status: string;
  created_at: string;
  expires_at: string;
  used_by: string | null;
  failed_attempts: number;
}

export type HandoverState = 'open' | 'accepted' | 'cancelled' | 'expired' | 'offered';

/**
 * A handover of the home to a member (docs/keychain.md). On the home: the latest offer, with
 * the six digits while it is open. On the member offered to: `offered` (or `expired`), without
 * the code, which is typed here from the home's page.
 */
export interface HandoverView {
  offer_id: string;
  /** The fingerprint of the member the home is offered to. */
  to: string;
  state: string;
  /** Why a cancelled offer ended: `wrong code`, `cancelled` (withdrawn) or `replaced`. */
  reason: string | null;
  code: string | null;
  expires_at: string;
}

/** GET /v1/keychain (viewer), and the answer of every action that changes it. */
export interface KeychainView {
  role: KeychainRole;
  fingerprint: string;
  keychain_id: string | null;
  label: string | null;
  epoch: number | null;
  head: string | null;
  home_fp: string | null;
  since: string | null;
  carried: string[];
  /** On the home: the parts it does not carry. */
  skip?: string[];
  /** On a member: the parts it keeps its own copy of. */
  owned?: string[];
  parts: string[];
  members: KeychainMember[];
  site_keys: SiteKeyRow[];
  /** On the home: pairing by code; null elsewhere. */
  pairing: PairingView | null;
  /** On an install that asked a home to pair; null when it never did. */
  joining: JoiningView | null;
  /** A handover offered by the home, as each side sees it; null when none. */
  handover: HandoverView | null;
}

export interface SiteKeysInput {
  labels: string[];
  purpose?: string;
  licence?: boolean;
  hours?: number;
}

/** POST /v1/keychain/site-keys: each key shown once, usable once. */
export interface SiteKeysCreated {
  keys: { id: string; label: string; key: string; expires_at: string }[];
}

export interface SealedAnswer {
  file: string;
  keychain_id: string;
  content_version: number;
  parts: string[];
  sha256: string;
}

export interface UnsealAnswer {
  applied: string[];
  left: string[];
  content_version: number;
  skipped: string | null;
}

export const keychainApi = {
  view: () => call<KeychainView>('GET', '/v1/keychain'),
  makeHome: (label: string) => call<KeychainView>('POST', '/v1/keychain/home', { label }),
  createSiteKeys: (body: SiteKeysInput) =>
    call<SiteKeysCreated>('POST', '/v1/keychain/site-keys', body),
  revoke: (id: string) => call<KeychainView>('POST', '/v1/keychain/site-keys/revoke', { id }),
  removeMember: (fingerprint: string) =>
    call<KeychainView>('POST', '/v1/keychain/members/remove', { fingerprint }),
  rename: (label: string, fingerprint?: string) =>
    call<KeychainView>('POST', '/v1/keychain/rename', {
      label,
      ...(fingerprint !== undefined && { fingerprint }),
    }),
  pull: () => call<KeychainView>('POST', '/v1/keychain/pull', {}),
  scope: (skip: string[]) => call<KeychainView>('POST', '/v1/keychain/scope', { skip }),
  own: (part: string, own: boolean) =>
    call<KeychainView>('POST', '/v1/keychain/own', { part, own }),
  openWindow: () => call<KeychainView>('POST', '/v1/keychain/window', {}),
  join: (address: string, label: string) =>
    call<KeychainView>('POST', '/v1/keychain/join', { address, label }),
  joinConfirm: (code: string) => call<KeychainView>('POST', '/v1/keychain/join/confirm', { code }),
  joinCancel: () => call<KeychainView>('POST', '/v1/keychain/join/cancel', {}),
  confirmMember: (fingerprint: string, code: string) =>
    call<KeychainView>('POST', '/v1/keychain/members/confirm', { fingerprint, code }),
  approveSeat: (request: string) =>
    call<KeychainView>('POST', '/v1/keychain/joins/approve', { request }),
  leave: () => call<KeychainView>('POST', '/v1/keychain/leave', {}),
  offerHandover: (fingerprint: string) =>
    call<KeychainView>('POST', '/v1/keychain/handover', { fingerprint }),
  cancelHandover: () => call<KeychainView>('POST', '/v1/keychain/handover/cancel', {}),
  acceptHandover: (code: string) =>
    call<KeychainView>('POST', '/v1/keychain/handover/accept', { code }),
  takeOver: (force: boolean) =>
    call<KeychainView>('POST', '/v1/keychain/take-over', force ? { force: true } : {}),
  seal: (passphrase: string) => call<SealedAnswer>('POST', '/v1/keychain/seal', { passphrase }),
  unseal: (file: string, passphrase: string) =>
    call<UnsealAnswer>('POST', '/v1/keychain/unseal', { file, passphrase }),
};

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
