// The durability stage of the writer (writer.ts) for a connection opened with
// synchronous=NORMAL: after a group commits, the WAL file is flushed with fdatasync on
// libuv's thread pool, and only then are its callers answered. This is what
// synchronous=FULL does inside the commit, moved off the event loop: the next group runs
// while the disk works. fsync covers the file, whichever descriptor wrote it.
import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, statSync } from 'node:fs';
import type { Durability } from './writer.js';

export interface WalSync extends Durability {
  close(): void;
}

export function createWalSync(dbFile: string): WalSync {
  const walFile = `${dbFile}-wal`;
  let fd: number | null = null;
  let inode = -1;
  // Descriptors of a replaced WAL stay open until close: a sync may still be running on one.
  const retired: number[] = [];
  let dbFd: number | null = null;

  /** The descriptor to flush: the WAL SQLite writes now, or the database when it has none. */
  function target(): number {
    let walInode: number | null;
    try {
      walInode = statSync(walFile).ino;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      walInode = null;
    }
    if (walInode === null) {
      // No WAL (SQLite checkpointed and removed it): what was committed is in the file.
      dbFd ??= openSync(dbFile, 'r');
      return dbFd;
    }
    if (fd === null || walInode !== inode) {
      if (fd !== null) retired.push(fd);
      fd = openSync(walFile, 'r');
      inode = fstatSync(fd).ino;
    }
    return fd;
  }

  return {
    sync: () =>
      new Promise<void>((resolve, reject) => {
        let descriptor: number;
        try {
          descriptor = target();
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        fdatasync(descriptor, (err) => {
          if (err) reject(err);
          else resolve();
        });
      }),
    syncNow(): void {
      fdatasyncSync(target());
    },
    close(): void {
      for (const d of [fd, dbFd, ...retired]) if (d !== null) closeSync(d);
      fd = null;
      dbFd = null;
      retired.length = 0;
    },
  };
}
