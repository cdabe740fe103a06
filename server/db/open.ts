import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';

/** The oldest SQLite the store accepts (architecture: WAL-reset corruption fix in 3.51.3). */
export const MIN_SQLITE = '3.51.3';

export interface OpenOptions {
  readonly readonly?: boolean;
  /**
   * The service's write connection: commits do not sync (synchronous=NORMAL) because the
   * writer flushes the WAL off the event loop before it answers (wal-sync.ts), and it never
   * checkpoints itself (wal_autocheckpoint=0) because a checkpoint thread does
   * (checkpointer.ts). Anything else opened read-write syncs in each commit.
   */
  readonly syncedByWriter?: boolean;
}

/** Open the one database file with the pragmas the store relies on, and check them. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const db = new Database(file, {
    readonly: options.readonly === true,
    fileMustExist: options.readonly === true,
  });
  try {
    const version = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
    if (compareVersions(version, MIN_SQLITE) < 0) {
      throw new Error(
        `SQLite ${version} is older than ${MIN_SQLITE}; the store refuses to start on it`,
      );
    }
    const syncedByWriter = options.readonly !== true && options.syncedByWriter === true;
    if (options.readonly !== true) {
      db.pragma('journal_mode = WAL');
      db.pragma(syncedByWriter ? 'synchronous = NORMAL' : 'synchronous = FULL');
      if (syncedByWriter) db.pragma('wal_autocheckpoint = 0');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    checkPragmas(db, options.readonly === true, syncedByWriter);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function checkPragmas(db: Db, readonly: boolean, syncedByWriter: boolean): void {
  const mode = db.pragma('journal_mode', { simple: true }) as string;
  if (mode !== 'wal') throw new Error(`journal_mode is ${mode}, the store needs wal`);
  if (!readonly) {
    const sync = db.pragma('synchronous', { simple: true }) as number;
    const [want, name] = syncedByWriter
      ? [1, 'NORMAL (1) with the writer syncing']
      : [2, 'FULL (2)'];
    if (sync !== want) throw new Error(`synchronous is ${String(sync)}, the store needs ${name}`);
  }
  if ((db.pragma('foreign_keys', { simple: true }) as number) !== 1) {
    throw new Error('foreign_keys is off, the store needs it on');
  }
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}
