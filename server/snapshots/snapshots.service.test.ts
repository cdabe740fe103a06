// Snapshots against a real SQLite file with a fake connector call: the diff, first and later
// snapshots, reads without change, failures without a flood, a hanging connector, the
// projection rebuilt from the ledger, read times that survive a restart, and the timer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dumpProjections, replayLedger } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import { InvalidInputError } from '../shared/errors.js';
import { openLedgerBench } from '../testing/ledger-bench.js';
import { applyDiff, MAX_FACTS, MAX_VALUE, TRUNCATED_KEY } from './snapshots.diff.js';
import {
  createSnapshotsService,
  createSnapshotsStore,
  diffFacts,
  FRESH_MS,
  normaliseFacts,
  type SnapshotSource,
} from './index.js';
import { ledgerRows } from '../testing/ledger-rows.js';

const quiet = { warn: () => undefined, info: () => undefined, debug: () => undefined };

describe('facts and their diff', () => {
  it('finds added, removed and changed keys, and applying the diff gives the new facts', () => {
    const before = { version: '2.41.0', 'config.global': 'aa', 'rule_group.r.yml/old': '11' };
    const after = { version: '2.42.0', 'config.global': 'aa', 'rule_group.r.yml/new': '22' };
    const d = diffFacts(before, after);
    expect(d).toEqual({
      added: { 'rule_group.r.yml/new': '22' },
      removed: { 'rule_group.r.yml/old': '11' },
      changed: { version: { from: '2.41.0', to: '2.42.0' } },
    });
    expect(applyDiff(before, d)).toEqual(after);
    expect(diffFacts(null, after)).toEqual({ added: after, removed: {}, changed: {} });
    expect(diffFacts(after, { ...after })).toEqual({ added: {}, removed: {}, changed: {} });
  });

  it('normalises an answer: text values, clipped, no credential keys, no URL logins', () => {
    const facts = normaliseFacts({
      facts: {
        version: '1.0',
        port: 9090,
        on: true,
        nested: { a: 1 },
        basic_password: 'hunter2',
        bearer_token: 'abc',
        remote: 'https://deploy:s3cret@git.example.com/infra.git',
        long: 'x'.repeat(MAX_VALUE + 50),
      },
    });
    expect(facts).toEqual({
      version: '1.0',
      port: '9090',
      on: 'true',
      remote: 'https://***@git.example.com/infra.git',
      long: `${'x'.repeat(MAX_VALUE - 1)}…`,
    });
    expect(JSON.stringify(facts)).not.toMatch(/hunter2|s3cret|abc/);
    expect(() => normaliseFacts({ nope: 1 })).toThrow(/no facts object/);
    expect(() => normaliseFacts(null)).toThrow(/no facts object/);
  });

  it('masks credential values inside a value, as a second line behind the gate', () => {
    const facts = normaliseFacts({
      facts: {
        'diff:/etc/app.conf': '-db_password = old1 | +db_password = new2 | -pool = 5 | +pool = 6',
        'diff:/etc/app.json': '+  "api_key": "k-123", | -  "token": "t-456"',
        'file:/etc/app.conf': 'a'.repeat(64),
      },
    });
    expect(facts['diff:/etc/app.conf']).toBe(
      '-db_password = *** | +db_password = *** | -pool = 5 | +pool = 6',
    );
    expect(facts['diff:/etc/app.json']).toBe('+  "api_key": *** | -  "token": ***');
    expect(JSON.stringify(facts)).not.toMatch(/old1|new2|k-123|t-456/);
    expect(facts['file:/etc/app.conf']).toBe('a'.repeat(64));
  });

  it('keeps at most MAX_FACTS keys and says that some were left out', () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_FACTS + 10 }, (_, i) => [`k${String(i).padStart(4, '0')}`, 'v']),
    );
    const facts = normaliseFacts({ facts: many });
    expect(Object.keys(facts)).toHaveLength(MAX_FACTS + 1);
    expect(facts[TRUNCATED_KEY]).toMatch(/more than 500 facts/);
  });
});

let dir: string;
const opened: { close(): void }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-snapshots-'));
});
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
  rmSync(dir, { recursive: true, force: true });
});

type Answer = Record<string, string> | Error | 'hang';

function start(
  sources: SnapshotSource[],
  answers: Record<string, Answer>,
  options: {
    backstopS?: number;
    firstDelayMs?: number;
    intervalS?: number;
    catchUpMs?: number;
  } = {},
) {
  const clock = createFakeClock('2026-11-22T00:00:00.000Z');
  const { db, writer, projections, ledgerStore, ledger } = openLedgerBench(
    join(dir, 'svc.db'),
    clock,
  );
  opened.push(db);
  const store = createSnapshotsStore(db);
  projections.register(store.projection);
  const calls: string[] = [];
  const snapshots = createSnapshotsService({
    store,
    ledger,
    writer,
    clock,
    sources: () => sources,
    call: async (name, op) => {
      calls.push(`${name}:${op}`);
      const a = answers[name];
      if (a === 'hang') return new Promise<never>(() => undefined);
      if (a instanceof Error) throw a;
      return { facts: a ?? {} };
    },
    intervalS: options.intervalS ?? 600,
    ...(options.firstDelayMs !== undefined && { firstDelayMs: options.firstDelayMs }),
    ...(options.catchUpMs !== undefined && { catchUpMs: options.catchUpMs }),
    backstopS: options.backstopS ?? 5,
    log: quiet,
  });
  const events = (type = 'snapshot.') =>
    ledgerRows(db)
      .filter((e) => e.type.startsWith(type))
      .map((e) => ({
        type: e.type,
        ts: e.ts,
        data: JSON.parse(e.data) as Record<string, unknown>,
      }));
  return { db, clock, store, snapshots, events, calls, projections, ledgerStore, writer };
}

describe('snapshots service', () => {
  const prom = { name: 'prom', kind: 'prometheus' };

  it('records the first snapshot, nothing for an unchanged read, and the diff of a change', async () => {
    const answers: Record<string, Answer> = { prom: { version: '2.41.0', config_sha256: 'aa' } };
    const s = start([prom], answers);
    expect(await s.snapshots.runNow()).toEqual({ prom: 'first' });
    expect(s.events()).toEqual([
      {
        type: 'snapshot.changed',
        ts: '2026-11-22T00:00:00.000Z',
        data: {
          connector: 'prom',
          added: { version: '2.41.0', config_sha256: 'aa' },
          removed: {},
          changed: {},
          first: true,
        },
      },
    ]);

    s.clock.advance(600_000);
    expect(await s.snapshots.runNow()).toEqual({ prom: 'unchanged' });
    expect(s.events()).toHaveLength(1);
    expect(s.store.read('prom')).toMatchObject({
      status: 'ok',
      ok_at: '2026-11-22T00:10:00.000Z',
    });

    s.clock.advance(600_000);
    answers['prom'] = { version: '2.42.0', rules: 'bb' };
    expect(await s.snapshots.runNow()).toEqual({ prom: 'changed' });
    expect(s.events()[1]?.data).toEqual({
      connector: 'prom',
      added: { rules: 'bb' },
      removed: { config_sha256: 'aa' },
      changed: { version: { from: '2.41.0', to: '2.42.0' } },
    });
    expect(s.store.facts('prom')).toEqual({ version: '2.42.0', rules: 'bb' });
    expect(s.calls).toEqual(['prom:setup', 'prom:setup', 'prom:setup']);
  });

  it('answers what changed since a time, oldest first, and refuses a bad time', async () => {
    const answers: Record<string, Answer> = { prom: { v: '1' } };
    const s = start([prom], answers);
    await s.snapshots.runNow();
    s.clock.set('2026-11-22T01:00:00.000Z');
    answers['prom'] = { v: '2' };
    await s.snapshots.runNow();
    expect(s.snapshots.changesSince('2026-11-22T00:30:00Z')).toEqual([
      {
        seq: expect.any(Number) as unknown,
        connector: 'prom',
        at: '2026-11-22T01:00:00.000Z',
        added: {},
        removed: {},
        changed: { v: { from: '1', to: '2' } },
      },
    ]);
    const all = s.snapshots.changesSince('2026-11-21T00:00:00Z');
    expect(all.map((c) => [c.at, c.first])).toEqual([
      ['2026-11-22T00:00:00.000Z', true],
      ['2026-11-22T01:00:00.000Z', undefined],
    ]);
    expect(() => s.snapshots.changesSince('yesterday')).toThrow(InvalidInputError);
  });

  it('records a failure once, not at every read, and the recovery', async () => {
    const answers: Record<string, Answer> = { prom: { v: '1' } };
    const s = start([prom], answers);
    await s.snapshots.runNow();
    answers['prom'] = new Error('connector prom: timed out after 10 s');
    s.clock.advance(60_000);
    expect(await s.snapshots.runNow()).toEqual({ prom: 'failed' });
    s.clock.advance(60_000);
    expect(await s.snapshots.runNow()).toEqual({ prom: 'failed' });
    expect(s.events('snapshot.failed')).toEqual([
      {
        type: 'snapshot.failed',
        ts: '2026-11-22T00:01:00.000Z',
        data: { connector: 'prom', detail: 'connector prom: timed out after 10 s' },
      },
    ]);
    expect(s.store.read('prom')).toMatchObject({
      status: 'failed',
      attempt_at: '2026-11-22T00:02:00.000Z',
      ok_at: '2026-11-22T00:00:00.000Z',
      detail: 'connector prom: timed out after 10 s',
    });
    answers['prom'] = { v: '1' };
    expect(await s.snapshots.runNow()).toEqual({ prom: 'unchanged' });
    expect(s.events().map((e) => e.type)).toEqual([
      'snapshot.changed',
      'snapshot.failed',
      'snapshot.recovered',
    ]);
  });

  it('reads connectors in parallel: one that hangs holds back no other', async () => {
    const s = start(
      [prom, { name: 'stuck', kind: 'git' }, { name: 'broken', kind: 'http', problem: 'bad url' }],
      { prom: { v: '1' }, stuck: 'hang' },
      { backstopS: 0.3 },
    );
    const started = Date.now();
    expect(await s.snapshots.runNow()).toEqual({
      prom: 'first',
      stuck: 'failed',
      broken: 'failed',
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(s.events('snapshot.failed').map((e) => e.data)).toEqual(
      expect.arrayContaining([
        { connector: 'stuck', detail: 'connector stuck: setup did not answer within 0.3 s' },
        { connector: 'broken', detail: 'connector broken cannot be used: bad url' },
      ]),
    );
    expect(s.calls).not.toContain('broken:setup');
  });

  it('shares a run under way instead of overlapping it', async () => {
    const s = start([prom], { prom: { v: '1' } });
    const a = s.snapshots.runNow();
    const b = s.snapshots.runNow();
    expect(a).toBe(b);
    await a;
    expect(s.calls).toEqual(['prom:setup']);
  });

  it('says how fresh each connector is, from read times that survive a restart', async () => {
    const sources: SnapshotSource[] = [prom, { name: 'repo', kind: 'git' }];
    const answers: Record<string, Answer> = { prom: { v: '1' }, repo: new Error('no repo') };
    const s = start(sources, answers);
    await s.snapshots.runNow();
    s.clock.advance(FRESH_MS + 60_000);
    const f = s.snapshots.freshness();
    expect(f.max_age_ms).toBe(FRESH_MS);
    expect(f.connectors).toEqual([
      {
        connector: 'prom',
        kind: 'prometheus',
        status: 'ok',
        ok_at: '2026-11-22T00:00:00.000Z',
        attempt_at: '2026-11-22T00:00:00.000Z',
        age_ms: FRESH_MS + 60_000,
        fresh: false,
        detail: null,
      },
      {
        connector: 'repo',
        kind: 'git',
        status: 'failed',
        ok_at: null,
        attempt_at: '2026-11-22T00:00:00.000Z',
        age_ms: null,
        fresh: false,
        detail: 'no repo',
      },
    ]);
    await s.writer.close();
    s.db.close();
    // The same file opened again: the read times are there without any new read.
    const again = start([...sources, { name: 'new', kind: 'http' }], {});
    again.clock.set('2026-11-22T00:05:00.000Z');
    expect(
      again.snapshots.freshness().connectors.map((c) => [c.connector, c.status, c.fresh]),
    ).toEqual([
      ['prom', 'ok', true],
      ['repo', 'failed', false],
      ['new', 'never', false],
    ]);
  });

  it('rebuilds facts and changes from the ledger alone', async () => {
    const answers: Record<string, Answer> = { prom: { a: '1', b: '2' } };
    const s = start([prom, { name: 'repo', kind: 'git' }], { ...answers, repo: { head: 'c1' } });
    await s.snapshots.runNow();
    answers['prom'] = { a: '1', c: '3' };
    const t = start([prom], answers); // same file, a second service: a later run
    await t.snapshots.runNow();
    const before = dumpProjections(s.db, s.projections);
    s.db.transaction(() => replayLedger(s.db, s.ledgerStore, s.projections))();
    expect(dumpProjections(s.db, s.projections)).toEqual(before);
    expect(s.store.facts('prom')).toEqual({ a: '1', c: '3' });
    expect(s.store.facts('repo')).toEqual({ head: 'c1' });
  });

  it('reads a connector added between runs at the next catch-up, not an interval later', async () => {
    const sources: SnapshotSource[] = [];
    const s = start(
      sources,
      { prom: { v: '1' } },
      { firstDelayMs: 10, intervalS: 3600, catchUpMs: 30 },
    );
    s.snapshots.start();
    await new Promise((r) => setTimeout(r, 60));
    expect(s.calls).toEqual([]); // the first run found nothing to read
    sources.push(prom); // configured after that run
    await new Promise((r) => setTimeout(r, 150));
    expect(s.calls).toEqual(['prom:setup']); // read once, and not again until the interval
    await s.snapshots.stop();
    expect(s.events().map((e) => e.type)).toEqual(['snapshot.changed']);
  });

  it('runs first after a short delay, then every interval, and stops cleanly', async () => {
    const s = start([prom], { prom: { v: '1' } }, { firstDelayMs: 20, intervalS: 0.05 });
    s.snapshots.start();
    s.snapshots.start(); // a second start adds no timer
    await new Promise((r) => setTimeout(r, 200));
    await s.snapshots.stop();
    const n = s.calls.length;
    expect(n).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 120));
    expect(s.calls).toHaveLength(n);
    s.snapshots.start(); // stopped for good: close is final
    await new Promise((r) => setTimeout(r, 80));
    expect(s.calls).toHaveLength(n);
  });
});
