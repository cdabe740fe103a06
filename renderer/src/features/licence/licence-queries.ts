// The licence and its installs (docs/licence.md, licence.md §3.7): the wire shapes of the
// licence endpoints, their calls and query keys, and the words for a stage. The top bar's
// banner uses this file, so it stays small: it is part of the first load.
import { ApiError, call, session } from '../../shared/api.js';
import { type LicenceStage, type StatusLicence } from '../status/index.js';

export const licenceKeys = {
  all: ['licence'] as const,
  installs: ['licence', 'installs'] as const,
};

/** One install as GET /v1/licence/installs lists it (the licence's, and grants issued here). */
export interface InstallEntry {
  fingerprint: string;
  label?: string | null;
  role?: string | null;
  added_at?: string | null;
  /** authority, vouch, grant … */
  via?: string | null;
  /** an offline grant's end */
  valid_until?: string | null;
}

export interface InstallRequestEntry {
  req_id: string;
  fingerprint?: string | null;
  label?: string | null;
  purpose?: string | null;
  /** open, granted, pending, manual, expired, burned, refused … */
  status?: string;
  state?: string;
  why?: string | null;
  created_at?: string | null;
  expires_at?: string | null;
}

export interface InstallHistoryEntry {
  seq?: number;
  ts?: string;
  at?: string;
  type?: string;
  event?: string;
  actor?: string;
  data?: Record<string, unknown>;
}

export type InstallAction = 'ask' | 'look' | 'vouch' | 'poll' | 'remove';
export interface Allowed {
  allowed: boolean;
  why?: string | null;
}

/** GET /v1/licence/installs (viewer). */
export interface InstallsView {
  this: {
    fingerprint: string | null;
    kind?: string | null;
    label?: string | null;
    role?: string | null;
    on_licence: boolean;
    vouched_until?: string | null;
  };
  installs: InstallEntry[];
  history: InstallHistoryEntry[];
  limit: { installs: number | null; used: number };
  candidate: Record<string, unknown> | null;
  outgoing: InstallRequestEntry[];
  can: Partial<Record<InstallAction, Allowed>>;
}

export type Purpose = 'add' | 'move' | 'dr' | 'replace';
export const PURPOSES: readonly { value: Purpose; words: string }[] = [
  { value: 'add', words: 'add: another install on this licence' },
  { value: 'move', words: 'move: this install moved to new hardware' },
  { value: 'dr', words: 'dr: the disaster-recovery install' },
  { value: 'replace', words: 'replace: takes over from an install being retired' },
];

export interface AskAnswer {
  code: string;
  text: string;
  req_id?: string;
}

export interface LookCheck {
  name: string;
  ok: boolean;
  detail?: string | null;
}

export interface LookAnswer {
  request: {
    req_id: string;
    fingerprint: string;
    kind?: string | null;
    label?: string | null;
    purpose?: string | null;
    version?: string | null;
    created_at?: string | null;
    expires_at?: string | null;
  } | null;
  digits: string | null;
  checks: LookCheck[];
  would: string;
  why?: string | null;
}

/** POST /v1/licence/installs/vouch: granted (text to carry back), pending (why), manual. */
export interface VouchAnswer {
  result: string;
  why?: string | null;
  text?: string | null;
}

/** POST /v1/licence/installs/poll: the state of this install's open request(s). */
export interface PollAnswer {
  state?: string;
  why?: string | null;
  requests?: InstallRequestEntry[];
}

export interface LicenceAnswer {
  changed: boolean;
  licence: Record<string, unknown> | null;
}

export const licenceApi = {
  install: (licence: string, acknowledge?: boolean) =>
    call<LicenceAnswer>('POST', '/v1/licence', {
      licence,
      ...(acknowledge === true && { acknowledge: true }),
    }),
  remove: () => call<LicenceAnswer>('DELETE', '/v1/licence'),
  installs: () => call<InstallsView>('GET', '/v1/licence/installs'),
  ask: (purpose: Purpose, label: string) =>
    call<AskAnswer>('POST', '/v1/licence/installs/ask', {
      purpose,
      ...(label.trim() !== '' && { label: label.trim() }),
    }),
  look: (text: string) => call<LookAnswer>('POST', '/v1/licence/installs/look', { text }),
  vouch: (text: string, code: string) =>
    call<VouchAnswer>('POST', '/v1/licence/installs/vouch', { text, code }),
  poll: () => call<PollAnswer>('POST', '/v1/licence/installs/poll', {}),
  removeInstall: (fingerprint: string) =>
    call<Record<string, unknown>>('POST', '/v1/licence/installs/remove', { fingerprint }),
  /**
   * GET /v1/licence/usage (admin) as a file the browser saves: each statement is signed,
   * chained to the one before and recorded in the ledger, so it is made only on a click.
   */
  usage: async (): Promise<{ name: string; blob: Blob }> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = session.get();
    if (token !== null) headers['authorization'] = `Bearer ${token}`;
    const res = await fetch('/v1/licence/usage', { headers, cache: 'no-store' });
    const text = await res.text();
    if (!res.ok) {
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
      } catch {
        // not JSON: the status says enough
      }
      throw new ApiError(res.status, body);
    }
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    return {
      name: `usage-statement-${stamp}.json`,
      blob: new Blob([text], { type: 'application/json' }),
    };
  },
};

/** The stage in words, with a glyph so colour is never the only cue. */
export const STAGE_WORDS: Record<LicenceStage, { glyph: string; words: string; tone: string }> = {
  not_yet: { glyph: '○', words: 'not started yet', tone: 'warn' },
  valid: { glyph: '✓', words: 'valid', tone: 'ok' },
  expiring: { glyph: '!', words: 'expiring', tone: 'warn' },
  in_grace: { glyph: '!', words: 'in grace', tone: 'warn' },
  lapsed: { glyph: '✗', words: 'lapsed', tone: 'fail' },
};

export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${String(n)} ${n === 1 ? one : many}`;

/** "50", or "unlimited" for null. */
export const limitText = (n: number | null): string => (n === null ? 'unlimited' : String(n));

/** "in 9 days" / "today" for a licence's days left. */
export function daysLeftText(l: Pick<StatusLicence, 'days_left'>): string {
  if (l.days_left === null) return 'never expires';
  if (l.days_left === 0) return 'today';
  return `in ${plural(l.days_left, 'day')}`;
}
