// Codes and password hashes in SQLite. Only hashes are stored; no read returns a code.
import type { Database } from 'better-sqlite3';

export interface CodeRow {
  readonly email: string;
  readonly code_hash: string;
  readonly salt: string;
  readonly tries: number;
  readonly created_at: string;
  readonly expires_at: string;
}

export function createSignInStore(db: Database) {
  const putCode = db.prepare<[string, string, string, string, string]>(
    `INSERT INTO signin_codes (email, code_hash, salt, tries, created_at, expires_at)
     VALUES (?, ?, ?, 0, ?, ?)
     ON CONFLICT (email) DO UPDATE SET code_hash = excluded.code_hash, salt = excluded.salt,
       tries = 0, created_at = excluded.created_at, expires_at = excluded.expires_at`,
  );
  const getCode = db.prepare<[string], CodeRow>(
    'SELECT email, code_hash, salt, tries, created_at, expires_at FROM signin_codes WHERE email = ?',
  );
  const addTry = db.prepare<[string]>('UPDATE signin_codes SET tries = tries + 1 WHERE email = ?');
  const dropCode = db.prepare<[string]>('DELETE FROM signin_codes WHERE email = ?');
  const dropExpired = db.prepare<[string]>('DELETE FROM signin_codes WHERE expires_at <= ?');
  const getPassword = db.prepare<[string], { hash: string }>(
    'SELECT hash FROM signin_passwords WHERE user_id = ?',
  );
  const putPassword = db.prepare<[string, string, string]>(
    `INSERT INTO signin_passwords (user_id, hash, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
  );
  const dropPassword = db.prepare<[string]>('DELETE FROM signin_passwords WHERE user_id = ?');
  return {
    putCode: (email: string, hash: string, salt: string, at: string, expires: string): void => {
      putCode.run(email, hash, salt, at, expires);
    },
    code: (email: string): CodeRow | null => getCode.get(email) ?? null,
    /** Count a wrong code; answers the tries so far. */
    addTry: (email: string): void => {
      addTry.run(email);
    },
    dropCode: (email: string): boolean => dropCode.run(email).changes > 0,
    dropExpired: (now: string): number => dropExpired.run(now).changes,
    passwordHash: (userId: string): string | null => getPassword.get(userId)?.hash ?? null,
    putPassword: (userId: string, hash: string, at: string): void => {
      putPassword.run(userId, hash, at);
    },
    dropPassword: (userId: string): boolean => dropPassword.run(userId).changes > 0,
  };
}
export type SignInStore = ReturnType<typeof createSignInStore>;
