// Console sessions in SQLite: operational state, not a ledger projection. Rows hold the
// SHA-256 of a token, never the token; no read below returns even the hash.
import type { Database } from 'better-sqlite3';
import { Role } from '../shared/roles.js';

export const SessionEnd = {
  Logout: 'logout',
  Expired: 'expired',
  /** The person was disabled or deleted (people): their sessions end at once. */
  Disabled: 'disabled',
  Deleted: 'deleted',
  /** The person's password changed: their other sessions end. */
  PasswordChanged: 'password_changed',
} as const;
export type SessionEnd = (typeof SessionEnd)[keyof typeof SessionEnd];

/** A session as the service sees it: every column but the token hash. */
export interface SessionRecord {
  readonly id: string;
  readonly user_id: string;
  readonly name: string;
  readonly role: Role;
  readonly method: string;
  readonly created_at: string;
  readonly last_seen_at: string;
  readonly idle_expires_at: string;
  readonly expires_at: string;
  readonly ended_at: string | null;
  readonly ended_why: string | null;
}

/** What an insert takes: the record of a new session, and the hash of its token. */
export type NewSessionRow = Omit<SessionRecord, 'ended_at' | 'ended_why'> & {
  readonly token_hash: string;
};

const COLUMNS = `id, user_id, name, role, method, created_at, last_seen_at, idle_expires_at,
  expires_at, ended_at, ended_why`;

const ROLES: readonly string[] = Object.values(Role);

/** A row whose role this build does not know is not a session (never a wider role). */
const checked = (row: SessionRecord | undefined): SessionRecord | null =>
  row !== undefined && ROLES.includes(row.role) ? row : null;

export function createSessionsStore(db: Database) {
  const insert = db.prepare<[NewSessionRow]>(
    `INSERT INTO sessions (id, token_hash, user_id, name, role, method, created_at, last_seen_at,
       idle_expires_at, expires_at)
     VALUES (@id, @token_hash, @user_id, @name, @role, @method, @created_at, @last_seen_at,
       @idle_expires_at, @expires_at)`,
  );
  const byHash = db.prepare<[string], SessionRecord>(
    `SELECT ${COLUMNS} FROM sessions WHERE token_hash = ?`,
  );
  const byId = db.prepare<[string], SessionRecord>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`);
  const touch = db.prepare<[string, string, string]>(
    `UPDATE sessions SET last_seen_at = ?, idle_expires_at = ? WHERE id = ? AND ended_at IS NULL`,
  );
  const end = db.prepare<[string, string, string]>(
    `UPDATE sessions SET ended_at = ?, ended_why = ? WHERE id = ? AND ended_at IS NULL`,
  );
  const expiredOpen = db.prepare<[{ now: string; limit: number }], SessionRecord>(
    `SELECT ${COLUMNS} FROM sessions
     WHERE ended_at IS NULL AND (idle_expires_at <= @now OR expires_at <= @now)
     ORDER BY idle_expires_at LIMIT @limit`,
  );
  const openOf = db.prepare<[string], SessionRecord>(
    `SELECT ${COLUMNS} FROM sessions WHERE user_id = ? AND ended_at IS NULL ORDER BY id`,
  );
  const setIdentity = db.prepare<[string, string, string]>(
    `UPDATE sessions SET name = ?, role = ? WHERE user_id = ? AND ended_at IS NULL`,
  );
  const removeEnded = db.prepare<[string]>(
    `DELETE FROM sessions WHERE ended_at IS NOT NULL AND ended_at < ?`,
  );

  return {
    insert(row: NewSessionRow): void {
      insert.run(row);
    },
    /** The one indexed read of every request that carries a session token. */
    byTokenHash: (hash: string): SessionRecord | null => checked(byHash.get(hash)),
    byId: (id: string): SessionRecord | null => checked(byId.get(id)),
    /** Slide the idle expiry: a plain write, not a state change worth a ledger event. */
    touch(id: string, lastSeenAt: string, idleExpiresAt: string): void {
      touch.run(lastSeenAt, idleExpiresAt, id);
    },
    /** End a session once; false when it had already ended. */
    end: (id: string, at: string, why: SessionEnd): boolean => end.run(at, why, id).changes === 1,
    /** Sessions past either expiry that nobody has ended yet, oldest first. */
    expiredOpen: (now: string, limit: number): SessionRecord[] => expiredOpen.all({ now, limit }),
    /** A person's sessions that have not ended (some may have expired unnoticed). */
    openOf: (userId: string): SessionRecord[] =>
      openOf.all(userId).filter((r): r is SessionRecord => checked(r) !== null),
    /** A person's new name and role, for their open sessions. */
    setIdentityOf: (userId: string, name: string, role: Role): number =>
      setIdentity.run(name, role, userId).changes,
    /** Remove rows of sessions that ended before `before`; the ledger keeps their events. */
    removeEndedBefore: (before: string): number => removeEnded.run(before).changes,
  };
}
export type SessionsStore = ReturnType<typeof createSessionsStore>;
