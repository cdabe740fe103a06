// Console sessions: a sign-in method proves who someone is, then `signIn` hands out an
// `svs_` token. Only the token's SHA-256 is stored; every request looks the hash up once
// (synchronously, from the auth plugin). Sessions end on logout, after 12 idle hours, or
// 7 days after sign-in; sign-in and sign-out are ledger events, the token never is.
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import type { Role } from '../shared/roles.js';
import type { Principal } from '../shared/types.js';
import { SessionEnd, type SessionRecord, type SessionsStore } from './sessions.store.js';
import type { AccessEvents } from './access.events.js';

/** Session tokens start with this, so that a leaked one is recognisable (secret scanners). */
export const SESSION_TOKEN_PREFIX = 'svs_';
/** A session unused this long ends (sliding). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** A session ends this long after sign-in, however busy. */
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often per session (not on every request). */
export const SESSION_TOUCH_MS = 60 * 1000;
/** Rows of ended sessions are kept this long (the ledger keeps the events for ever). */
export const SESSION_KEEP_ENDED_MS = 30 * 24 * 60 * 60 * 1000;
/** How often the cleanup runs once started. */
export const SESSION_SWEEP_MS = 60 * 60 * 1000;
/** Expired sessions ended per cleanup run; the next run takes the rest. */
const SWEEP_BATCH = 5000;

export const SIGNED_IN = 'auth.signed_in';
export const SIGNED_OUT = 'auth.signed_out';

/** How a person proved who they are. */
export const SignInMethod = {
  AdminToken: 'admin-token',
  Code: 'code',
  Password: 'password',
  Ldap: 'ldap',
  Sso: 'sso',
  Bootstrap: 'bootstrap',
} as const;
export type SignInMethod = (typeof SignInMethod)[keyof typeof SignInMethod];

/** Who a new session is for; a sign-in method establishes it. */
export interface SessionIdentity {
  readonly userId: string;
  readonly name: string;
  readonly role: Role;
}

/** Whoever signs in with the admin token: the first owner, until people exist. */
export const FIRST_OWNER: SessionIdentity = { userId: 'owner', name: 'owner', role: 'owner' };

/** A session as the API shows it (never the token, never its hash). */
export interface SessionView {
  readonly id: string;
  readonly user_id: string;
  readonly name: string;
  readonly role: Role;
  readonly method: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly idle_expires_at: string;
}

/** GET /v1/me: the caller, by session or admin token. */
export interface Me {
  readonly name: string;
  readonly role: Role;
  readonly user_id: string | null;
  readonly kind: 'session' | 'admin-token';
  readonly session: Pick<
    SessionView,
    'id' | 'method' | 'created_at' | 'expires_at' | 'idle_expires_at'
  > | null;
}

interface Deps {
  readonly store: SessionsStore;
  readonly ledger: DomainLedger<AccessEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly log?: Pick<Logger, 'warn' | 'error'>;
}

/** SHA-256 hex of a session token: what the store keeps and looks up. */
export const hashSessionToken = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

const newToken = (): string => `${SESSION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
const newSessionId = (): string => `ses-${randomBytes(8).toString('hex')}`;
const iso = (ms: number): string => new Date(ms).toISOString();

/** When a session stops working if nothing else ends it first. */
const endsAt = (s: SessionRecord): number =>
  Math.min(Date.parse(s.idle_expires_at), Date.parse(s.expires_at));

const viewOf = (s: SessionRecord): SessionView => ({
  id: s.id,
  user_id: s.user_id,
  name: s.name,
  role: s.role,
  method: s.method,
  created_at: s.created_at,
  expires_at: s.expires_at,
  idle_expires_at: s.idle_expires_at,
});

export function createSessionsService({ store, ledger, writer, clock, log }: Deps) {
  const ending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;

  /** Inside a writer job: end the session once and record it; false if it had ended. */
  function endNow(s: SessionRecord, why: SessionEnd, at: string): boolean {
    if (!store.end(s.id, at, why)) return false;
    ledger.append({ type: SIGNED_OUT, actor: s.name, data: { session_id: s.id, why } });
    return true;
  }

  /** Mark an expired session ended without holding up the request that found it. */
  function endExpiredLater(s: SessionRecord): void {
    if (ending.has(s.id)) return;
    ending.add(s.id);
    writer
      .transact(() => endNow(s, SessionEnd.Expired, iso(endsAt(s))))
      .catch((err: unknown) => log?.error({ err, session_id: s.id }, 'could not end a session'))
      .finally(() => ending.delete(s.id));
  }

  /** The live session of a token: not ended and not expired. */
  function live(token: string): SessionRecord | null {
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) return null;
    const s = store.byTokenHash(hashSessionToken(token));
    if (s === null || s.ended_at !== null) return null;
    if (clock.now() >= endsAt(s)) {
      endExpiredLater(s);
      return null;
    }
    return s;
  }

  function sweep(): Promise<{ expired: number; removed: number }> {
    return writer.transact(() => {
      const now = clock.now();
      let expired = 0;
      for (const s of store.expiredOpen(iso(now), SWEEP_BATCH)) {
        if (endNow(s, SessionEnd.Expired, iso(endsAt(s)))) expired++;
      }
      const removed = store.removeEndedBefore(iso(now - SESSION_KEEP_ENDED_MS));
      return { expired, removed };
    });
  }

  function sweepInBackground(): void {
    sweep().catch((err: unknown) => log?.error({ err }, 'session cleanup failed'));
  }

  return {
    /** Open a session for someone a sign-in method has identified; answers after commit. */
    async signIn(
      who: SessionIdentity,
      method: SignInMethod,
    ): Promise<{ token: string; session: SessionView }> {
      const token = newToken();
      const record = await writer.transact((): SessionRecord => {
        const now = clock.now();
        const expires = now + SESSION_MAX_MS;
        const s = {
          id: newSessionId(),
          user_id: who.userId,
          name: who.name,
          role: who.role,
          method,
          created_at: iso(now),
          last_seen_at: iso(now),
          idle_expires_at: iso(Math.min(now + SESSION_IDLE_MS, expires)),
          expires_at: iso(expires),
        };
        store.insert({ ...s, token_hash: hashSessionToken(token) });
        ledger.append({
          type: SIGNED_IN,
          actor: who.name,
          data: { session_id: s.id, user_id: who.userId, role: who.role, method },
        });
        return { ...s, ended_at: null, ended_why: null };
      });
      return { token, session: viewOf(record) };
    },

    /**
     * The auth plugin's SessionLookup: one indexed SELECT by token hash, synchronous.
     * Slides the idle expiry (a plain UPDATE at most once a minute per session); an expired
     * session is refused now and marked ended in the background.
     */
    lookup(token: string): Principal | null {
      const s = live(token);
      if (s === null) return null;
      const now = clock.now();
      if (now - Date.parse(s.last_seen_at) >= SESSION_TOUCH_MS) {
        try {
          store.touch(
            s.id,
            iso(now),
            iso(Math.min(now + SESSION_IDLE_MS, Date.parse(s.expires_at))),
          );
        } catch (err) {
          // A store that cannot write now must not sign people out: the session stays valid
          // until its recorded idle expiry.
          log?.warn({ err, session_id: s.id }, 'could not record session activity');
        }
      }
      return { kind: 'session', name: s.name, role: s.role, userId: s.user_id };
    },

    /** The live session of a token, as the API shows it. */
    current(token: string): SessionView | null {
      const s = live(token);
      return s === null ? null : viewOf(s);
    },

    /** GET /v1/me for a session or the admin token (`token`: the caller's bearer token). */
    me(principal: Principal, token: string | null): Me {
      switch (principal.kind) {
        case 'admin-token':
          return {
            name: principal.name,
            role: principal.role,
            user_id: null,
            kind: 'admin-token',
            session: null,
          };
        case 'session': {
          const s = token === null ? null : live(token);
          return {
            name: principal.name,
            role: principal.role,
            user_id: principal.userId,
            kind: 'session',
            session:
              s === null
                ? null
                : {
                    id: s.id,
                    method: s.method,
                    created_at: s.created_at,
                    expires_at: s.expires_at,
                    idle_expires_at: s.idle_expires_at,
                  },
          };
        }
        case 'ingest-token':
          throw new Error('GET /v1/me is not for the ingest token; requireRole must refuse it');
      }
    },

    /** End the session of a token (logout); false when it was not live. Answers after commit. */
    async signOut(token: string): Promise<boolean> {
      const s = live(token);
      if (s === null) return false;
      return writer.transact(() => endNow(s, SessionEnd.Logout, clock.nowIso()));
    },

    /**
     * Inside a writer job: end every open session of a person who was disabled or deleted,
     * or whose password changed (then all but the session of `keepToken`, the one that
     * changed it), each with its auth.signed_out event; returns how many ended.
     */
    endSessionsOf(
      userId: string,
      why: 'disabled' | 'deleted' | 'password_changed',
      keepToken?: string | null,
    ): number {
      const at = clock.nowIso();
      const keep =
        keepToken === undefined || keepToken === null ? null : (live(keepToken)?.id ?? null);
      return store.openOf(userId).filter((s) => s.id !== keep && endNow(s, why, at)).length;
    },

    /** Inside a writer job (people): a person's new name and role hold for their open sessions. */
    updateSessionsOf(userId: string, who: { name: string; role: Role }): number {
      return store.setIdentityOf(userId, who.name, who.role);
    },

    /** End expired sessions (with their events) and remove rows ended over 30 days ago. */
    sweep,

    /** Run the cleanup now and then hourly on an unref'd timer. */
    start(): void {
      if (timer !== null) return;
      sweepInBackground();
      timer = setInterval(sweepInBackground, SESSION_SWEEP_MS);
      timer.unref();
    },

    /** Stop the hourly cleanup; call before the writer closes. */
    stop(): void {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}
export type SessionsService = ReturnType<typeof createSessionsService>;
