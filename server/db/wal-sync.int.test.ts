// The writer's durability stage on a real file: commits without a sync in the connection,
// the WAL flushed before any answer, the checkpoint thread keeping the WAL bounded.
import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointer, RESTART_AFTER_MS } from './checkpointer.js';
import { openDatabase } from './open.js';
import { createWalSync, type WalSync } from './wal-sync.js';
import { createWriter } from './writer.js';

let dir: string;
let file: string;
let db: Database;
let walSync: WalSync;
const log = { error: () => undefined };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-walsync-'));
  file = join(dir, 'svc.db');
  db = openDatabase(file, { syncedByWriter: true });
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)');
  walSync = createWalSync(file);
});
afterEach(() => {
  if (db.open) db.close();
  walSync.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The files this process holds open, by path. */
const openFiles = (): string[] =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(join('/proc/self/fd', fd))];
    } catch {
      return [];
    }
  });

const row = (id: number) =>
  db.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(id, Buffer.alloc(3000, id % 251));

describe('the write connection', () => {
  it('commits without syncing and never checkpoints by itself', () => {
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  });
});

describe('the WAL sync', () => {
  it('answers after a flush of the WAL the connection writes now, found again when it was replaced', async () => {
    const wal = `${file}-wal`;
    let writer = createWriter(db, { durability: walSync });
    await writer.transact(() => row(1));
    expect(openFiles()).toContain(wal);
    // The last connection closes: SQLite copies the WAL back and removes it. A sync then
    // flushes the database file, where everything committed now is.
    db.close();
    await walSync.sync();
    expect(openFiles()).toContain(file);
    expect(openFiles()).toContain(`${wal} (deleted)`); // kept until close: a sync may run on it
    // Opened again: a new WAL (another inode) is the one flushed from then on.
    db = openDatabase(file, { syncedByWriter: true });
    writer = createWriter(db, { durability: walSync });
    await writer.transact(() => row(2));
    expect(openFiles().filter((f) => f === wal)).toHaveLength(2); // SQLite's and the sync's
    walSync.syncNow();
    walSync.close();
    expect(openFiles().filter((f) => f.startsWith(wal))).toEqual([wal]); // SQLite's alone
  });
});

describe('the checkpoint thread', () => {
  const walFrames = (): number => {
    const other = openDatabase(file);
    try {
      return (other.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]?.log ?? -1;
    } finally {
      other.close();
    }
  };

  it('keeps the WAL short while the writer commits, which alone lets it grow with every commit', async () => {
    const writer = createWriter(db, { durability: walSync });
    for (let i = 0; i < 300; i++) await writer.transact(() => row(i));
    const unchecked = statSync(`${file}-wal`).size;
    expect(unchecked).toBeGreaterThan(300 * 3000); // nothing copied back: one frame or more a commit

    db.pragma('wal_checkpoint(TRUNCATE)');
    const checkpointer = createCheckpointer(file, log);
    if (checkpointer === null) throw new Error('the checkpoint thread cannot start');
    writer.onBatch(() => checkpointer.nudge());
    let runs = 0;
    checkpointer.onResult(() => runs++);
    for (let i = 300; i < 600; i++) {
      await writer.transact(() => row(i));
      if (i % 30 === 0) await new Promise((r) => setTimeout(r, 60)); // let nudges through
    }
    // Once a checkpoint copied every frame, the next commit starts the WAL over. Under load
    // the thread answers nudges late, so wait until it has been quiet for a while and its
    // last run copied every frame (a result that arrives late may predate the last commit).
    const seen: { last: { log: number; checkpointed: number } | null; at: number } = {
      last: null,
      at: performance.now(),
    };
    checkpointer.onResult((r) => {
      seen.last = r;
      seen.at = performance.now();
    });
    await writer.transact(() => row(600));
    for (let waited = 0; waited < 200; waited++) {
      await new Promise((r) => setTimeout(r, 50));
      const settled = performance.now() - seen.at > 300;
      if (settled && seen.last !== null && seen.last.checkpointed === seen.last.log) break;
      if (settled) checkpointer.nudge();
    }
    await writer.transact(() => row(601));
    await checkpointer.close();
    expect(runs).toBeGreaterThan(3);
    expect(walFrames()).toBeLessThan(10);
    expect(statSync(`${file}-wal`).size).toBeLessThan(unchecked);
  });

  it('starts a WAL over that a steady stream of commits never lets the writer restart', async () => {
    const writer = createWriter(db, { durability: walSync });
    const checkpointer = createCheckpointer(file, log, { restartFrames: 64 });
    if (checkpointer === null) throw new Error('the checkpoint thread cannot start');
    writer.onBatch(() => checkpointer.nudge());
    const logs: number[] = [];
    checkpointer.onResult((r) => logs.push(r.log));
    // The thread loads first (under tsx that takes a while), on an empty WAL.
    const ready = new Promise<void>((resolve) => checkpointer.onResult(() => resolve()));
    await writer.transact(() => row(-1));
    await ready;
    db.pragma('wal_checkpoint(TRUNCATE)');
    logs.length = 0;
    // Back to back, never a pause: 1,200 commits of about a frame each.
    await Promise.all(Array.from({ length: 600 }, (_, i) => writer.transact(() => row(i))));
    for (let i = 600; i < 1200; i++) await writer.transact(() => row(i));
    await checkpointer.close();
    expect(logs.length).toBeGreaterThan(1);
    // Without a restart the WAL would hold every frame of the 1,200 commits.
    expect(statSync(`${file}-wal`).size).toBeLessThan(1200 * 3000);
  });

  it('a write that reads first is never refused while the thread starts the WAL over', async () => {
    const writer = createWriter(db, { durability: walSync });
    const checkpointer = createCheckpointer(file, log, { restartFrames: 16 });
    if (checkpointer === null) throw new Error('the checkpoint thread cannot start');
    writer.onBatch(() => checkpointer.nudge());
    const ready = new Promise<void>((resolve) => checkpointer.onResult(() => resolve()));
    await writer.transact(() => row(-1));
    await ready;
    const count = db.prepare('SELECT count(*) AS n FROM t');
    // As intake does: a read (is this signal known?), then the write, in one job.
    const readThenWrite = (i: number) =>
      writer.transact(() => {
        count.get();
        row(i);
      });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, async (_, k) => {
        for (let i = 0; i < 30; i++) await readThenWrite(k * 100 + i);
      }),
    );
    await checkpointer.close();
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  });

  it('a thread that died is replaced at a later nudge; close stops it', async () => {
    const threads: Worker[] = [];
    const checkpointer = createCheckpointer(file, log, { onThread: (w) => threads.push(w) });
    if (checkpointer === null) throw new Error('the checkpoint thread cannot start');
    const results: number[] = [];
    checkpointer.onResult((r) => results.push(r.log));
    const writer = createWriter(db, { durability: walSync });
    writer.onBatch(() => checkpointer.nudge());
    await writer.transact(() => row(1));
    expect(threads).toHaveLength(1);
    await threads[0]?.terminate();
    await new Promise((r) => setTimeout(r, RESTART_AFTER_MS + 100));
    await writer.transact(() => row(2));
    expect(threads).toHaveLength(2);
    const done = new Promise<void>((resolve) => threads[1]?.once('message', () => resolve()));
    await done;
    await checkpointer.close();
    expect(threads[1]?.threadId).toBe(-1); // exited
  });
});
