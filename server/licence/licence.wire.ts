// Wire shapes of the install exchange's answers (licence.md §3.7), whose routes declare a free
// object: GET /v1/licence/installs and POST …/ask, look, vouch, poll and remove. The server's
// code that builds each answer is typed with these, and the console imports them (`import
// type`), so a change here that breaks the console fails tsc. Types only: nothing at runtime.

/** Whether the caller may do one of the exchange's steps, and why not. */
export interface Allowed {
  readonly allowed: boolean;
  readonly why?: string;
}

export type InstallAction = 'ask' | 'look' | 'vouch' | 'poll' | 'remove';

/** Where a request asked here stands (§3.7 step 4). */
export type PollState = 'open' | 'granted' | 'pending' | 'expired' | 'burned' | 'refused';

/** What a new install asks for. */
export type Purpose = 'add' | 'move' | 'dr' | 'replace';

/** A licence.install.* ledger event in the installs' history. */
export interface InstallHistoryEvent {
  readonly seq: number;
  readonly ts: string;
  readonly type: string;
  readonly actor: string;
  readonly data: unknown;
}

/** One install: the licence's, a grant issued here, or this install running under a grant. */
export interface InstallEntry {
  readonly fingerprint: string;
  readonly label: string | null;
  readonly role: string;
  readonly added_at: string;
  /** authority, vouch, redeem (on the licence), vouch (a grant issued here), grant (this one) */
  readonly via: string;
  /** an offline grant's end */
  readonly valid_until?: string | null;
  readonly install_pub?: string;
}

/** A request asked on this install, as it stands. */
export interface OutgoingRequest {
  readonly req_id: string;
  readonly fingerprint: string;
  readonly purpose: string;
  readonly label: string | null;
  readonly code: string | null;
  readonly status: PollState;
  readonly created_at: string;
  readonly expires_at: string;
  readonly valid_until: string | null;
}

/** GET /v1/licence/installs (viewer). */
export interface InstallsView {
  readonly this: {
    readonly fingerprint: string | null;
    readonly kind: string | null;
    readonly label: string | null;
    readonly role: string | null;
    readonly on_licence: boolean;
    readonly vouched_until: string | null;
  };
  readonly installs: readonly InstallEntry[];
  readonly history: readonly InstallHistoryEvent[];
  readonly limit: { readonly installs: number | null; readonly used: number };
  readonly candidate: { readonly fingerprint: string; readonly kind: string | null } | null;
  readonly outgoing: readonly OutgoingRequest[];
  readonly can: Readonly<Record<InstallAction, Allowed>>;
}

/** POST /v1/licence/installs/ask: the code to read out and the text to carry. */
export interface AskAnswer {
  readonly req_id: string;
  readonly code: string;
  readonly text: string;
  readonly fingerprint: string;
  readonly purpose: Purpose;
  readonly expires_at: string;
}

/** One check of a pasted request. */
export interface LookCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

/** granted | pending | manual as §3.7; refused when a check rules any vouch out. */
export type Would = 'granted' | 'pending' | 'manual' | 'refused';

/** The request as signed. */
export interface LookRequest {
  readonly req_id: string;
  readonly fingerprint: string;
  readonly kind: string;
  readonly label: string | null;
  readonly purpose: string;
  readonly version: string;
  readonly created_at: string;
  readonly expires_at: string;
}

/** POST /v1/licence/installs/look: the request, its digits, each check and what a vouch would do. */
export interface LookAnswer {
  readonly request: LookRequest | null;
  readonly digits: string | null;
  readonly checks: readonly LookCheck[];
  readonly would: Would;
  readonly why: string;
}

/** POST /v1/licence/installs/vouch (200): granted (the text to carry back), pending, manual. */
export interface VouchAnswer {
  readonly result: 'granted' | 'pending' | 'manual';
  readonly why: string;
  readonly req_id: string;
  readonly fingerprint: string;
  readonly role?: string;
  /** an offline grant's end (null when the authority added the install) */
  readonly valid_until?: string | null;
  /** granted: the grant or licence to paste on N; manual: the forward bundle for the vendor */
  readonly text?: string;
}

/** POST /v1/licence/installs/poll: where the requests asked here stand. */
export interface PollAnswer {
  /** the newest request's state */
  readonly state: PollState;
  readonly requests: readonly (OutgoingRequest & { readonly why: string | null })[];
  readonly why: string | null;
}

/** POST /v1/licence/installs/remove: the seat freed, and what the authority made of it. */
export interface RemoveAnswer {
  readonly removed: string;
  readonly limit: { readonly installs: number | null; readonly used: number };
  readonly authority: {
    readonly result: 'serial' | 'not_listed' | 'refused' | 'unreachable' | 'offline';
    readonly why: string;
  };
}
