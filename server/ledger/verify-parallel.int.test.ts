// Verify split into spans on worker threads finds the same first failure, at the same seq,
// as one pass: tampering inside a later span, at a span boundary, and in a seal.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { makeDataDir, testEnv } from '../testing/test-server.js';
import { createThreadRunner } from './verify-threads.js';
import { splitSpans, verifyLedger, type VerifyReport } from './verify.js';

const EVENTS = 3_500;
let base: string;

function openRuntime(dir: string) {
  return createRuntime(loadConfig(testEnv(dir, join(dir, 'machine-id'))), {
    log: createLogger('silent'),
  });
}

/**
 * Verify a (tampered) copy of the ledger in `parts` spans (spans end at seq 2000 and 3000 with
 * three), shared between this thread and a worker thread.
 */
async function verifyCopy(
  tamper?: (db: Database.Database) => void,
  parts = 3,
): Promise<VerifyReport> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-vp-'));
  cpSync(base, dir, { recursive: true });
  try {
    const file = join(dir, 'data', 'svc.db');
    if (tamper) {
      const db = new Database(file);
      db.exec('DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete;');
      db.exec('DROP TRIGGER ledger_segments_no_update;');
      tamper(db);
      db.close();
    }
    const rt = openRuntime(dir);
    try {
      const runner = createThreadRunner(file, rt.keyName, rt.keyFor);
      if (runner === undefined) throw new Error('no worker script');
      try {
        return await verifyLedger(
          { store: rt.ledgerStore, keyName: rt.keyName, keyFor: rt.keyFor },
          { runner, parts, parallelFrom: 0 },
        );
      } finally {
        await runner.close();
      }
    } finally {
      rt.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  base = makeDataDir().dir;
  const rt = openRuntime(base);
  try {
    await rt.writer.transact(() => {
      for (let i = 0; i < EVENTS; i++) {
        rt.ledger.append({ type: 'human.action', actor: 'ci:test', data: { i } });
      }
    });
    expect(rt.sealer?.sealNow()).toBe(3);
  } finally {
    rt.close();
  }
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe('parallel verify', () => {
  it('splits at segment ends into spans that cover the ledger once', () => {
    const segs = [1, 2, 3].map((n) => ({
      segment: n,
      first_seq: (n - 1) * 1000 + 1,
      last_seq: n * 1000,
      digest: Buffer.alloc(32),
      checkpoint: '',
      algorithm: 'ed25519',
      sealed_at: '',
    }));
    expect(splitSpans(segs, 3_200, 3)).toEqual([
      { after: 0, to: 2000, segIndex: 0, isLast: false },
      { after: 2000, to: 3000, segIndex: 2, isLast: false },
      { after: 3000, to: 3200, segIndex: 3, isLast: true },
    ]);
    expect(splitSpans([], 500, 3)).toEqual([{ after: 0, to: 500, segIndex: 0, isLast: true }]);
  });

  it('runs spans on a worker thread it keeps, and starts one again after close', async () => {
    const rt = openRuntime(base);
    const runner = createThreadRunner(join(base, 'data', 'svc.db'), rt.keyName, rt.keyFor);
    if (runner === undefined) throw new Error('no worker script');
    try {
      expect(runner.threads).toBeGreaterThanOrEqual(1);
      const spans = [
        { after: 2000, to: 3000, segIndex: 2, isLast: false },
        { after: 0, to: 1000, segIndex: 0, isLast: false },
      ];
      for (const span of spans) {
        expect(await runner.run(span)).toEqual({ checked: 1000, failure: null });
      }
      await runner.close();
      expect(await runner.run({ after: 3000, to: 3500, segIndex: 3, isLast: true })).toEqual({
        checked: 500,
        failure: null,
      });
    } finally {
      await runner.close();
      rt.close();
    }
  });

  it('runs the spans of a worker that dies here, with the same report', async () => {
    const rt = openRuntime(base);
    // A database the worker cannot open: its thread fails as it starts.
    const runner = createThreadRunner(join(base, 'no-such.db'), rt.keyName, rt.keyFor);
    if (runner === undefined) throw new Error('no worker script');
    try {
      await expect(
        runner.run({ after: 0, to: 1000, segIndex: 0, isLast: false }),
      ).rejects.toThrow();
      const r = await verifyLedger(
        { store: rt.ledgerStore, keyName: rt.keyName, keyFor: rt.keyFor },
        { runner, parts: 4, parallelFrom: 0 },
      );
      expect(r.failure).toBeNull();
      expect(r.checked).toBe(r.head.seq);
    } finally {
      await runner.close();
      rt.close();
    }
  });

  it('shares more spans than threads, each taken once', async () => {
    const r = await verifyCopy(undefined, 4);
    expect(r.failure).toBeNull();
    expect(r.checked).toBe(r.head.seq);
  });

  it('verifies an intact ledger with every event checked once', async () => {
    const r = await verifyCopy();
    expect(r.failure).toBeNull();
    expect(r.checked).toBe(r.head.seq);
    expect(r.segments).toBe(3);
  });

  it('names a changed event inside a later span', async () => {
    const r = await verifyCopy((db) => {
      db.prepare(`UPDATE ledger SET data = '{"i":-1}' WHERE seq = 2500`).run();
    });
    expect(r.failure).toMatchObject({ seq: 2500, check: 'chain' });
  });

  it('names an event deleted at the last seq of a span', async () => {
    // 3,500 events in three parts: spans end at seq 2000 and 3000.
    const r = await verifyCopy((db) => {
      db.prepare('DELETE FROM ledger WHERE seq = 2000').run();
    });
    expect(r.failure).toMatchObject({ seq: 2000, check: 'sequence' });
  });

  it('reports the earliest failure when several spans fail', async () => {
    const r = await verifyCopy((db) => {
      db.prepare(`UPDATE ledger SET actor = 'x' WHERE seq IN (700, 3100)`).run();
    });
    expect(r.failure).toMatchObject({ seq: 700, check: 'chain' });
  });

  it('names a broken seal in a worker span at its first seq', async () => {
    const r = await verifyCopy((db) => {
      db.prepare(`UPDATE ledger_segments SET digest = zeroblob(32) WHERE segment = 3`).run();
    });
    expect(r.failure).toMatchObject({ seq: 2001, check: 'digest', segment: 3 });
  });

  it('reads a row whose value is not text exactly, as the writer made it: a BLOB actor is a changed event', async () => {
    const r = await verifyCopy((db) => {
      db.prepare(`UPDATE ledger SET actor = CAST(actor AS BLOB) WHERE seq = 2600`).run();
    });
    expect(r.failure).toMatchObject({ seq: 2600, check: 'chain' });
  });

  it('reads data stored as a BLOB of the same text as that text, as before', async () => {
    const r = await verifyCopy((db) => {
      db.prepare(`UPDATE ledger SET data = CAST(data AS BLOB) WHERE seq IN (5, 2600)`).run();
    });
    expect(r.failure).toBeNull();
    expect(r.checked).toBe(r.head.seq);
  });

  it('names a hash stored as text instead of a BLOB as a changed event', async () => {
    const r = await verifyCopy((db) => {
      db.prepare(`UPDATE ledger SET hash = CAST(hash AS TEXT) WHERE seq = 1500`).run();
    });
    expect(r.failure).toMatchObject({ seq: 1500, check: 'chain' });
  });

  it('names the stored hash at a seam, changed alone, at that seq: the next span starts from it', async () => {
    const r = await verifyCopy((db) => {
      db.prepare(`UPDATE ledger SET hash = zeroblob(32) WHERE seq = 2000`).run();
    });
    expect(r.failure).toMatchObject({ seq: 2000, check: 'chain' });
  });

  it('names a pair reordered across a seam at the lower seq', async () => {
    const r = await verifyCopy((db) => {
      const cols = 'ts, type, category, actor, data, reason, trace_id, hash';
      const get = db.prepare<[number], Record<string, unknown>>(
        `SELECT ${cols} FROM ledger WHERE seq = ?`,
      );
      const put = db.prepare(
        `UPDATE ledger SET (${cols}) = (@ts, @type, @category, @actor, @data, @reason, @trace_id, @hash) WHERE seq = @seq`,
      );
      const a = get.get(2000);
      const b = get.get(2001);
      put.run({ ...b, seq: 2000 });
      put.run({ ...a, seq: 2001 });
    });
    expect(r.failure).toMatchObject({ seq: 2000, check: 'chain' });
  });

  it('names an event deleted at the first seq of a span', async () => {
    const r = await verifyCopy((db) => {
      db.prepare('DELETE FROM ledger WHERE seq = 2001').run();
    });
    expect(r.failure).toMatchObject({ seq: 2001, check: 'sequence' });
  });
});
