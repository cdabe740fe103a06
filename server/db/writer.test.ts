// The group-commit writer on an in-memory SQLite database: one transaction per event-loop
// turn, one savepoint per job, answers only after the commit, storage errors as 503s.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../shared/errors.js';
import { asStorageError, createWriter, MAX_WRITER_QUEUE, type Writer } from './writer.js';

let db: Database.Database;
let writer: Writer;
let batches: number[];

const insert = (id: number, v = `row ${String(id)}`) =>
  db.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run(id, v);
const ids = (): number[] =>
  db
    .prepare<[], { id: number }>('SELECT id FROM t ORDER BY id')
    .all()
    .map((r) => r.id);
const turn = () => new Promise((r) => setImmediate(r));

beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  writer = createWriter(db);
  batches = [];
  writer.onBatch((size) => batches.push(size));
});
afterEach(() => {
  db.close();
});

describe('group commit', () => {
  it('jobs submitted in one turn commit in one transaction, answered after the commit', async () => {
    const seenInside: boolean[] = [];
    const jobs = [1, 2, 3, 4, 5].map((id) =>
      writer.transact(() => {
        seenInside.push(db.inTransaction);
        insert(id);
        return id * 10;
      }),
    );
    expect(writer.depth()).toBe(5);
    expect(ids()).toEqual([]); // nothing runs before the turn ends
    await expect(Promise.all(jobs)).resolves.toEqual([10, 20, 30, 40, 50]);
    expect(seenInside).toEqual([true, true, true, true, true]);
    expect(db.inTransaction).toBe(false);
    expect(batches).toEqual([5]);
    expect(ids()).toEqual([1, 2, 3, 4, 5]);
    expect(writer.depth()).toBe(0);

    await writer.transact(() => insert(6));
    await Promise.all([writer.transact(() => insert(7)), writer.transact(() => insert(8))]);
    expect(batches).toEqual([5, 1, 2]);
  });

  it('a job submitted from inside a job runs in the next group', async () => {
    const inner: Promise<unknown>[] = [];
    await writer.transact(() => {
      insert(1);
      inner.push(writer.transact(() => insert(2)));
    });
    expect(ids()).toEqual([1]);
    await Promise.all(inner);
    expect(ids()).toEqual([1, 2]);
    expect(batches).toEqual([1, 1]);
  });

  it('a job that throws is rolled back alone; the others commit and resolve', async () => {
    const boom = new Error('boom');
    const results = await Promise.allSettled([
      writer.transact(() => insert(1)),
      writer.transact(() => {
        insert(2);
        insert(3);
        throw boom;
      }),
      writer.transact(() => {
        insert(4);
        return 'four';
      }),
      writer.transact(() => insert(1)), // constraint error: its own savepoint only
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
    ]);
    expect(results[1]).toEqual({ status: 'rejected', reason: boom });
    expect(results[2]).toEqual({ status: 'fulfilled', value: 'four' });
    const constraint = (results[3] as PromiseRejectedResult).reason as { code?: string };
    expect(constraint.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(constraint).not.toBeInstanceOf(StorageUnavailableError);
    expect(batches).toEqual([4]);
    expect(ids()).toEqual([1, 4]);
  });

  it('afterCommit callbacks run after the commit, only for committed jobs, before the answer', async () => {
    const log: string[] = [];
    const a = writer
      .transact(() => {
        insert(1);
        writer.afterCommit(() => {
          log.push(`a committed inTx=${String(db.inTransaction)} rows=${String(ids().length)}`);
        });
        return 'a';
      })
      .then((v) => log.push(`answered ${v}`));
    const b = writer
      .transact(() => {
        writer.afterCommit(() => log.push('b must not run'));
        insert(2);
        throw new Error('b fails');
      })
      .catch(() => log.push('b refused'));
    const c = writer.transact(() => {
      insert(3);
      writer.afterCommit(() => {
        throw new Error('a listener fails');
      });
      writer.afterCommit(() => log.push('c committed'));
    });
    await Promise.all([a, b, c]);
    expect(log).toEqual([
      'a committed inTx=false rows=2',
      'c committed',
      'answered a',
      'b refused',
    ]);
    expect(ids()).toEqual([1, 3]);
    expect(() => {
      writer.afterCommit(() => undefined);
    }).toThrow('afterCommit called outside a writer job');
  });
});

describe('transactNow', () => {
  it('runs at once in a transaction of its own and calls afterCommit after the commit', () => {
    const log: string[] = [];
    const value = writer.transactNow(() => {
      insert(1);
      writer.afterCommit(() => log.push(`after inTx=${String(db.inTransaction)}`));
      log.push(`inside inTx=${String(db.inTransaction)}`);
      return 42;
    });
    expect(value).toBe(42);
    expect(log).toEqual(['inside inTx=true', 'after inTx=false']);
    expect(ids()).toEqual([1]);
    expect(batches).toEqual([]);
  });

  it('rolls back and rethrows when the function throws, without calling afterCommit', () => {
    const log: string[] = [];
    expect(() =>
      writer.transactNow(() => {
        insert(1);
        writer.afterCommit(() => log.push('must not run'));
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(ids()).toEqual([]);
    expect(log).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });
});

describe('close', () => {
  it('waits for queued work and refuses later jobs', async () => {
    const queued = [writer.transact(() => insert(1)), writer.transact(() => insert(2))];
    let closed = false;
    const closing = writer.close().then(() => {
      closed = true;
    });
    await Promise.resolve();
    expect(closed).toBe(false);
    await closing;
    expect(closed).toBe(true);
    await expect(Promise.all(queued)).resolves.toHaveLength(2);
    expect(ids()).toEqual([1, 2]);

    const late = writer.transact(() => insert(3));
    await expect(late).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(late).rejects.toMatchObject({ code: 'storage_closed', kind: 'unavailable' });
    await turn();
    expect(ids()).toEqual([1, 2]);
  });

  it('resolves at once when nothing is queued', async () => {
    await writer.close();
    await expect(writer.transact(() => 1)).rejects.toMatchObject({ code: 'storage_closed' });
  });
});

describe('a bounded queue', () => {
  it('past the bound a job is refused at once (storage_busy, a 503); queued jobs still commit, and room returns after the group', async () => {
    const small = createWriter(db, { maxQueue: 3 });
    const queued = [1, 2, 3].map((id) => small.transact(() => insert(id)));
    let ran = false;
    const refused = small.transact(() => {
      ran = true;
      insert(4);
    });
    // Refused before the turn ends: the caller does not wait behind the queue.
    let settled = false;
    refused.catch(() => undefined).finally(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(true);
    await expect(refused).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(refused).rejects.toMatchObject({ code: 'storage_busy', kind: 'unavailable' });
    expect(small.depth()).toBe(3);
    await expect(Promise.all(queued)).resolves.toHaveLength(3);
    expect(ran).toBe(false);
    expect(ids()).toEqual([1, 2, 3]);
    await expect(small.transact(() => insert(5))).resolves.toBeDefined();
    expect(ids()).toEqual([1, 2, 3, 5]);
  });

  it('the default bound is MAX_WRITER_QUEUE jobs', async () => {
    expect(MAX_WRITER_QUEUE).toBe(10_000);
    const jobs = Array.from({ length: MAX_WRITER_QUEUE }, (_, i) => writer.transact(() => i));
    await expect(writer.transact(() => -1)).rejects.toMatchObject({ code: 'storage_busy' });
    await expect(Promise.all(jobs)).resolves.toHaveLength(MAX_WRITER_QUEUE);
  });
});

describe('storage errors', () => {
  /** Disk full, as SQLite sees it: the file may not grow past its current size. */
  function fill(): void {
    insert(1, 'x');
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${String(pages)}`);
  }
  const big = 'x'.repeat(100_000);

  it('SQLITE_FULL becomes StorageUnavailableError (storage_unavailable), and nothing is written', async () => {
    fill();
    const err: unknown = await writer.transact(() => insert(2, big)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageUnavailableError);
    expect(err).toMatchObject({ code: 'storage_unavailable', kind: 'unavailable' });
    expect((err as Error).message).toContain('SQLITE_FULL');
    expect(ids()).toEqual([1]);
    expect(db.inTransaction).toBe(false);

    expect(() => writer.transactNow(() => insert(3, big))).toThrow(StorageUnavailableError);
    expect(ids()).toEqual([1]);

    db.pragma('max_page_count = 1073741823');
    await writer.transact(() => insert(4, big));
    expect(ids()).toEqual([1, 4]);
  });

  it('when SQLITE_FULL aborts the group transaction, every job of the group is refused and none half-commits', async () => {
    fill();
    const log: string[] = [];
    const job = (id: number, v: string) =>
      writer.transact(() => {
        insert(id, v);
        writer.afterCommit(() => log.push(`committed ${String(id)}`));
        return id;
      });
    // SQLite rolls the whole transaction back on SQLITE_FULL, the jobs before the full one too.
    const results = await Promise.allSettled([
      job(2, 'small'),
      job(3, big),
      job(4, 'small'),
      job(5, 'small'),
    ]);
    expect(batches).toEqual([4]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StorageUnavailableError);
    }
    expect(log).toEqual([]);
    expect(ids()).toEqual([1]);
    expect(db.inTransaction).toBe(false);

    db.pragma('max_page_count = 1073741823');
    await expect(Promise.all([job(2, 'small'), job(3, big)])).resolves.toEqual([2, 3]);
    expect(ids()).toEqual([1, 2, 3]);
    expect(log).toEqual(['committed 2', 'committed 3']);
  });

  it('maps only the codes that mean "cannot store now"', () => {
    const sqliteError = (code: string) => Object.assign(new Error(code), { code });
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_IOERR_WRITE',
      'SQLITE_READONLY',
      'SQLITE_BUSY',
      'SQLITE_LOCKED',
      'SQLITE_CORRUPT',
      'SQLITE_NOTADB',
      'SQLITE_CANTOPEN',
    ]) {
      expect(asStorageError(sqliteError(code)), code).toBeInstanceOf(StorageUnavailableError);
    }
    for (const code of ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_ERROR', 'SQLITE_MISMATCH']) {
      const e = sqliteError(code);
      expect(asStorageError(e), code).toBe(e);
    }
    const plain = new Error('plain');
    expect(asStorageError(plain)).toBe(plain);
    expect(asStorageError(null)).toBe(null);
  });
});

describe('a durability stage after the commit (the WAL synced off the event loop)', () => {
  /** A durability stage the test releases by hand: each sync waits for `release`. */
  function manualSync() {
    const pending: { resolve: () => void; reject: (e: unknown) => void }[] = [];
    let nowCalls = 0;
    return {
      pending,
      nowCalls: () => nowCalls,
      durability: {
        sync: () =>
          new Promise<void>((resolve, reject) => {
            pending.push({ resolve, reject });
          }),
        syncNow: () => {
          nowCalls++;
        },
      },
    };
  }
  const settled = async <T>(p: Promise<T>): Promise<'pending' | 'resolved' | 'rejected'> => {
    let state: 'pending' | 'resolved' | 'rejected' = 'pending';
    p.then(
      () => (state = 'resolved'),
      () => (state = 'rejected'),
    );
    await turn();
    await turn();
    return state;
  };

  it('answers and afterCommit wait for the sync of their commit, not for the commit alone', async () => {
    const s = manualSync();
    const w = createWriter(db, { durability: s.durability });
    const log: string[] = [];
    const job = w.transact(() => {
      insert(1);
      w.afterCommit(() => log.push('after'));
      return 1;
    });
    expect(await settled(job)).toBe('pending');
    expect(ids()).toEqual([1]); // committed
    expect(log).toEqual([]); // but neither answered nor announced before it is durable
    expect(s.pending).toHaveLength(1);
    s.pending[0]?.resolve();
    await expect(job).resolves.toBe(1);
    expect(log).toEqual(['after']);
  });

  it('groups committed while a sync is in flight wait for the next sync, one sync at a time', async () => {
    const s = manualSync();
    const w = createWriter(db, { durability: s.durability });
    const first = w.transact(() => insert(1));
    await turn();
    const second = w.transact(() => insert(2));
    const third = w.transact(() => insert(3));
    await turn();
    expect(ids()).toEqual([1, 2, 3]);
    expect(s.pending).toHaveLength(1); // the second sync starts only after the first ends
    s.pending[0]?.resolve();
    expect(await settled(first)).toBe('resolved');
    expect(await settled(second)).toBe('pending'); // its commit came after the first sync began
    expect(s.pending).toHaveLength(2);
    s.pending[1]?.resolve();
    await expect(Promise.all([second, third])).resolves.toHaveLength(2);
  });

  it('a failed sync refuses the waiting jobs with a 503 and every later write: the store is in doubt', async () => {
    const s = manualSync();
    const w = createWriter(db, { durability: s.durability });
    const log: string[] = [];
    const job = w.transact(() => {
      insert(1);
      w.afterCommit(() => log.push('must not run'));
    });
    await turn();
    s.pending[0]?.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await expect(job).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(log).toEqual([]);
    await expect(w.transact(() => insert(2))).rejects.toMatchObject({
      code: 'storage_unavailable',
    });
    expect(() => w.transactNow(() => insert(3))).toThrow(StorageUnavailableError);
    expect(ids()).toEqual([1]);
  });

  it('close waits for the sync in flight', async () => {
    const s = manualSync();
    const w = createWriter(db, { durability: s.durability });
    const job = w.transact(() => insert(1));
    await turn();
    const closing = w.close();
    expect(await settled(closing)).toBe('pending');
    s.pending[0]?.resolve();
    await closing;
    await expect(job).resolves.toBeDefined();
  });

  it('transactNow syncs before it returns and before afterCommit', () => {
    const s = manualSync();
    const w = createWriter(db, { durability: s.durability });
    const seen: number[] = [];
    w.transactNow(() => {
      insert(1);
      w.afterCommit(() => seen.push(s.nowCalls()));
    });
    expect(s.nowCalls()).toBe(1);
    expect(seen).toEqual([1]);
  });
});

describe('a group has a time budget', () => {
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // a job that holds the thread, as a 25-alert body does
    }
  };

  it('jobs past the budget wait for the next group, and the event loop runs between groups', async () => {
    const w = createWriter(db, { groupBudgetMs: 10 });
    const sizes: number[] = [];
    w.onBatch((size) => sizes.push(size));
    const log: string[] = [];
    const jobs = [1, 2, 3, 4, 5].map((id) =>
      w.transact(() => {
        busy(6);
        insert(id);
        log.push(`job ${String(id)}`);
        // Something queued from inside a job, as an HTTP read arriving meanwhile is.
        setImmediate(() => log.push(`tick ${String(id)}`));
        return id;
      }),
    );
    await expect(Promise.all(jobs)).resolves.toEqual([1, 2, 3, 4, 5]);
    expect(ids()).toEqual([1, 2, 3, 4, 5]);
    expect(sizes.length).toBeGreaterThan(1);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(5);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
    // What the first group queued ran before the later groups' jobs did.
    expect(log.indexOf('tick 1')).toBeLessThan(log.indexOf('job 5'));
    await turn();
    expect(log.filter((l) => l.startsWith('tick'))).toHaveLength(5);
  });

  it('a job is never split from its group for lack of budget when it is the first', async () => {
    const w = createWriter(db, { groupBudgetMs: 1 });
    const sizes: number[] = [];
    w.onBatch((size) => sizes.push(size));
    await Promise.all([1, 2, 3].map((id) => w.transact(() => (busy(3), insert(id)))));
    expect(sizes).toEqual([1, 1, 1]);
    expect(ids()).toEqual([1, 2, 3]);
  });
});
