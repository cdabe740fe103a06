// The ledger end to end on real SQLite files: appends over HTTP, sealing by size and by age,
// verify against tampering done directly in the database file (fresh runtime and the
// svc-core CLI with a saved checkpoint), and every parameter of GET /v1/ledger.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { createFakeClock } from '../shared/clock.js';
import {
  asAdmin,
  asIngest,
  buildTestServer,
  testEnv,
  type TestServer,
} from '../testing/test-server.js';
import { sealHash, verifyCheckpoint } from './checkpoint.js';
import { chainHash } from './hash.js';
import { publicKeyFromDataDir } from './install-key.js';
import { GENESIS_HASH, type RawEvent } from './ledger.types.js';
import { merkleRoot } from './merkle.js';
import { SEAL_AGE_MS, SEALED_TYPE } from './sealer.js';
import { requireBundle, runCli } from '../testing/processes.js';

requireBundle();

interface Ev {
  seq: number;
  ts: string;
  type: string;
  actor: string;
  data: Record<string, unknown>;
  reason: string | null;
  trace_id: string | null;
  hash: string;
}
interface ListBody {
  events: Ev[];
  more: boolean;
  counts: Record<string, number>;
  head: { seq: number; hash: string | null };
  checkpoint: string | null;
}
interface Failure {
  seq: number;
  check: string;
  segment: number | null;
  message: string;
}
interface VerifyBody {
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string | null };
  segments: number;
  sealed_through: number;
  failure: Failure | null;
}
interface ErrorBody {
  error: string;
  message: string;
  field?: string;
  position?: number;
}

async function listen(s: TestServer): Promise<string> {
  await s.app.listen({ port: 0, host: '127.0.0.1' });
  const address = s.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${String(address.port)}`;
}

async function call<T>(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...(init.headers ?? asAdmin()),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function list(base: string, params: string): Promise<ListBody> {
  const r = await call<ListBody>(base, `/v1/ledger?${params}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

const seqs = (b: ListBody): number[] => b.events.map((e) => e.seq);
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
const raw = (e: Ev): RawEvent => ({
  seq: e.seq,
  ts: e.ts,
  type: e.type,
  actor: e.actor,
  data: canonicalJson(e.data),
  reason: e.reason,
  trace_id: e.trace_id,
});

/** Incremental export as the specification describes it: asc, 2000 at a time, after_seq. */
async function exportAll(base: string): Promise<{ events: Ev[]; pages: number; last: ListBody }> {
  const events: Ev[] = [];
  let after = 0;
  let pages = 0;
  for (;;) {
    const page = await list(base, `order=asc&limit=2000&after_seq=${String(after)}`);
    pages++;
    events.push(...page.events);
    after = page.events[page.events.length - 1]?.seq ?? after;
    if (!page.more) return { events, pages, last: page };
    if (pages > 100) throw new Error('export does not end');
  }
}

/** Re-chain exported events from their canonical form; returns the hash at the end. */
function rechain(events: readonly Ev[]): string {
  let prev: Buffer = GENESIS_HASH;
  for (const e of events) {
    const h = chainHash(prev, raw(e));
    expect(h.toString('hex'), `hash of seq ${String(e.seq)}`).toBe(e.hash);
    prev = h;
  }
  return prev.toString('hex');
}

/** Verify a data folder as a fresh process would: a new runtime on the file. */
async function verifyFolder(dir: string, checkpoint?: string) {
  const config = loadConfig(testEnv(dir, join(dir, 'machine-id')));
  const rt = createRuntime(config, { log: createLogger('silent'), mustExist: true });
  try {
    return await rt.reader.verify(checkpoint !== undefined ? { checkpoint } : {});
  } finally {
    rt.close();
  }
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------------------------------------------------------------------------------------

describe('GET /v1/ledger and its parameters', () => {
  const clock = createFakeClock('2026-01-01T00:00:00.000Z');
  let s: TestServer;
  let base: string;
  const acks: { seq: number; ts: string; type: string; trace_id: string | null }[] = [];

  // seq 1-3 are the start events (system.installed, system.started, licence.trial_started).
  const script: {
    at?: string;
    type: string;
    actor: string;
    data?: Record<string, unknown>;
    reason?: string;
    trace_id?: string;
  }[] = [
    {
      at: '2026-01-02T00:00:00.000Z',
      type: 'human.deploy',
      actor: 'ci:webshop',
      data: { service: 'webshop', version: '1.2' },
      trace_id: 'trace-web-1',
    }, // 4
    {
      type: 'approval.asked',
      actor: 'svc',
      data: { service: 'webshop', risk: 'low' },
      trace_id: 'trace-web-1',
    }, // 5
    {
      at: '2026-01-02T12:00:00.000Z',
      type: 'approval.granted',
      actor: 'human:alice',
      data: { service: 'webshop' },
      reason: 'looks fine',
      trace_id: 'trace-web-1',
    }, // 6
    { type: 'action.begun', actor: 'svc', data: { service: 'db' }, trace_id: 'trace-db-2' }, // 7
    {
      at: '2026-01-03T00:00:00.000Z',
      type: 'action.finished',
      actor: 'svc',
      data: { service: 'db', note: 'diskXfull' },
      trace_id: 'trace-db-2',
    }, // 8
    { type: 'check.read', actor: 'svc', data: { check: 'disk_full', host: 'db-1' } }, // 9
    {
      at: '2026-01-04T00:00:00.000Z',
      type: 'human.note',
      actor: 'human:bob',
      reason: 'at 100% now',
    }, // 10
    { type: 'config.changed', actor: 'human:alice', data: { key: 'autonomy' } }, // 11
  ];

  beforeAll(async () => {
    s = await buildTestServer({ clock });
    base = await listen(s);
    for (const step of script) {
      if (step.at !== undefined) clock.set(step.at);
      const { at: _at, ...body } = step;
      const r = await call<{ seq: number; ts: string; type: string; trace_id: string | null }>(
        base,
        '/v1/events',
        { method: 'POST', headers: asIngest(), body },
      );
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      acks.push(r.body);
    }
  });
  afterAll(async () => {
    await s.cleanup();
  });

  it('POST /v1/events answers 201 with seq and ts, and verify is ok with the right head', async () => {
    expect(acks[0]).toEqual({
      seq: 4,
      ts: '2026-01-02T00:00:00.000Z',
      type: 'human.deploy',
      trace_id: 'trace-web-1',
    });
    expect(acks.map((a) => a.seq)).toEqual(range(4, 11));
    expect(acks[7]).toEqual({
      seq: 11,
      ts: '2026-01-04T00:00:00.000Z',
      type: 'config.changed',
      trace_id: null,
    });

    const all = await list(base, 'order=asc');
    expect(all.events.slice(0, 3).map((e) => e.type)).toEqual([
      'system.installed',
      'system.started',
      'licence.trial_started',
    ]);
    expect(all.events[3]).toMatchObject({
      seq: 4,
      type: 'human.deploy',
      actor: 'ci:webshop',
      data: { service: 'webshop', version: '1.2' },
      reason: null,
      trace_id: 'trace-web-1',
    });
    const headHash = rechain(all.events);

    const v = await call<VerifyBody>(base, '/v1/ledger/verify');
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({
      ok: true,
      checked: 11,
      head: { seq: 11, hash: headHash },
      segments: 0,
      sealed_through: 0,
      failure: null,
    });
    expect(all.head).toEqual({ seq: 11, hash: headHash });
    expect(all.checkpoint).toBeNull();
  });

  it('needs a credential', async () => {
    const r = await call<ErrorBody>(base, '/v1/ledger', { headers: {} });
    expect(r.status).toBe(401);
  });

  it('order: newest first by default, asc oldest first', async () => {
    expect(seqs(await list(base, ''))).toEqual(range(1, 11).reverse());
    expect(seqs(await list(base, 'order=desc'))).toEqual(range(1, 11).reverse());
    expect(seqs(await list(base, 'order=asc'))).toEqual(range(1, 11));
    const bad = await call<ErrorBody>(base, '/v1/ledger?order=up');
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('order');
  });

  it('limit: at most 2000, and more says whether events follow', async () => {
    const three = await list(base, 'limit=3');
    expect(seqs(three)).toEqual([11, 10, 9]);
    expect(three.more).toBe(true);
    const eleven = await list(base, 'limit=11');
    expect(eleven.more).toBe(false);
    const ten = await list(base, 'limit=10&order=asc');
    expect(seqs(ten)).toEqual(range(1, 10));
    expect(ten.more).toBe(true);
    expect(seqs(await list(base, 'limit=2000'))).toHaveLength(11);
    for (const limit of ['2001', '0', '-1', 'many']) {
      const r = await call<ErrorBody>(base, `/v1/ledger?limit=${limit}`);
      expect(r.status, limit).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_input', field: 'limit' });
    }
  });

  it('offset pages through the selection', async () => {
    const p = await list(base, 'order=asc&limit=3&offset=3');
    expect(seqs(p)).toEqual([4, 5, 6]);
    expect(p.more).toBe(true);
    const last = await list(base, 'order=asc&limit=3&offset=9');
    expect(seqs(last)).toEqual([10, 11]);
    expect(last.more).toBe(false);
    expect(seqs(await list(base, 'offset=20'))).toEqual([]);
    expect(seqs(await list(base, 'order=desc&limit=2&offset=1'))).toEqual([10, 9]);
    const bad = await call<ErrorBody>(base, '/v1/ledger?offset=-1');
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('offset');
  });

  it('type takes a comma list of prefixes; counts per category ignore it', async () => {
    const everything = {
      system: 2,
      licence: 1,
      human: 2,
      approval: 2,
      action: 2,
      check: 1,
      config: 1,
    };
    const approvals = await list(base, 'type=approval.');
    expect(seqs(approvals)).toEqual([6, 5]);
    expect(approvals.counts).toEqual(everything);
    expect(seqs(await list(base, 'type=approval.,action.&order=asc'))).toEqual([5, 6, 7, 8]);
    expect(seqs(await list(base, 'type=%20approval.%20,%20check.%20&order=asc'))).toEqual([
      5, 6, 9,
    ]);
    expect(seqs(await list(base, 'type=action.begun'))).toEqual([7]);
    expect(seqs(await list(base, 'type=human&order=asc'))).toEqual([4, 10]);
    expect(seqs(await list(base, 'type=nothing.'))).toEqual([]);
    // A prefix is literal text: LIKE wildcards in it match only themselves.
    expect(seqs(await list(base, 'type=%25'))).toEqual([]);
    expect(seqs(await list(base, 'type=_uman.'))).toEqual([]);
    expect((await list(base, '')).counts).toEqual(everything);
  });

  it('trace and actor filter exactly', async () => {
    expect(seqs(await list(base, 'trace=trace-web-1&order=asc'))).toEqual([4, 5, 6]);
    expect(seqs(await list(base, 'trace=trace-db-2&order=asc'))).toEqual([7, 8]);
    expect(seqs(await list(base, 'trace=trace-db'))).toEqual([]);
    expect(seqs(await list(base, 'actor=human%3Aalice&order=asc'))).toEqual([6, 11]);
    expect(seqs(await list(base, 'actor=svc&order=asc'))).toEqual([5, 7, 8, 9]);
    const svcChecks = await list(base, 'actor=svc&type=check.');
    expect(seqs(svcChecks)).toEqual([9]);
    expect(svcChecks.counts).toEqual({ approval: 1, action: 2, check: 1 });
  });

  it('q searches type, actor, reason, data and trace, case-insensitive, wildcards literal', async () => {
    expect(seqs(await list(base, 'q=disk_full'))).toEqual([9]); // not 8 (diskXfull): _ is literal
    expect(seqs(await list(base, 'q=diskxfull'))).toEqual([8]);
    expect(seqs(await list(base, 'q=100%25'))).toEqual([10]);
    expect(seqs(await list(base, 'q=%25'))).toEqual([10]);
    expect(seqs(await list(base, 'q=LOOKS%20FINE'))).toEqual([6]);
    expect(seqs(await list(base, 'q=Alice&order=asc'))).toEqual([6, 11]);
    expect(seqs(await list(base, 'q=trace-db&order=asc'))).toEqual([7, 8]);
    expect(seqs(await list(base, 'q=approval.gr'))).toEqual([6]);
    const q = await list(base, 'q=webshop&type=approval.&order=asc');
    expect(seqs(q)).toEqual([5, 6]);
    expect(q.counts).toEqual({ human: 1, approval: 2 });
  });

  it('query uses the query language; a bad one is 400 bad_query with its position', async () => {
    const ask = (query: string, extra = '') =>
      list(base, `query=${encodeURIComponent(query)}&order=asc${extra}`);
    expect(seqs(await ask('type:approval.*'))).toEqual([5, 6]);
    expect(seqs(await ask('actor:svc -type:action.*'))).toEqual([5, 9]);
    expect(seqs(await ask('data.service:db'))).toEqual([7, 8]);
    expect(seqs(await ask('actor:"human:alice" OR type:human.*'))).toEqual([4, 6, 10, 11]);
    expect(seqs(await ask('reason~fine'))).toEqual([6]);
    expect(seqs(await ask('seq:7'))).toEqual([7]);
    expect(seqs(await ask('   '))).toEqual(range(1, 11));
    const counted = await ask('data.service:webshop', '&type=approval.');
    expect(seqs(counted)).toEqual([5, 6]);
    expect(counted.counts).toEqual({ human: 1, approval: 2 });

    const bad = await call<ErrorBody>(
      base,
      `/v1/ledger?query=${encodeURIComponent('actor:svc OR')}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'bad_query', field: 'query', position: 12 });
    expect(bad.body.message).toContain('at character 12');
    const unknown = await call<ErrorBody>(
      base,
      `/v1/ledger?query=${encodeURIComponent('type:x colour:red')}`,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'bad_query', field: 'query', position: 7 });
  });

  it('since is inclusive, until exclusive; dates are midnight UTC; offsets are honoured', async () => {
    expect(seqs(await list(base, 'since=2026-01-02&order=asc'))).toEqual(range(4, 11));
    expect(seqs(await list(base, 'until=2026-01-03&order=asc'))).toEqual(range(1, 7));
    expect(
      seqs(await list(base, 'since=2026-01-02T12:00:00Z&until=2026-01-03T00:00:00.000Z&order=asc')),
    ).toEqual([6, 7]);
    expect(
      seqs(await list(base, `since=${encodeURIComponent('2026-01-02T13:00:00+01:00')}&order=asc`)),
    ).toEqual(range(6, 11));
    expect(seqs(await list(base, 'since=2026-01-04T00:00:00.000Z&order=asc'))).toEqual([10, 11]);
    expect(
      seqs(await list(base, 'since=2026-01-03&until=2026-01-04T00:00:00.000Z&order=asc')),
    ).toEqual([8, 9]);
    expect(seqs(await list(base, 'until=2026-01-01'))).toEqual([]);
    const counted = await list(base, 'since=2026-01-03&type=human.');
    expect(seqs(counted)).toEqual([10]);
    expect(counted.counts).toEqual({ action: 1, check: 1, human: 1, config: 1 });
    // A timestamp without an offset is UTC, whatever the host's zone.
    expect(seqs(await list(base, 'since=2026-01-02T12:00&order=asc'))).toEqual(range(6, 11));
    // Days that do not exist are refused, not rolled over into the next month.
    for (const [param, value] of [
      ['since', 'yesterday'],
      ['until', '2026-02-30'],
      ['since', '2026-04-31T00:00:00Z'],
      ['since', '2026-13-01'],
      ['until', '2026-01-01T25:00Z'],
    ] as const) {
      const r = await call<ErrorBody>(base, `/v1/ledger?${param}=${value}`);
      expect(r.status, `${param}=${value}`).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_input', field: param });
    }
  });

  it('before_seq and after_seq bound the sequence', async () => {
    expect(seqs(await list(base, 'before_seq=5'))).toEqual([4, 3, 2, 1]);
    expect(seqs(await list(base, 'after_seq=9'))).toEqual([11, 10]);
    expect(seqs(await list(base, 'after_seq=4&before_seq=8&order=asc'))).toEqual([5, 6, 7]);
    expect(seqs(await list(base, 'after_seq=0&order=asc'))).toEqual(range(1, 11));
    expect(seqs(await list(base, 'after_seq=11'))).toEqual([]);
    const bad = await call<ErrorBody>(base, '/v1/ledger?before_seq=0');
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('before_seq');
  });

  it('latest keeps the newest N matching events, in the requested order', async () => {
    const newest = await list(base, 'latest=3');
    expect(seqs(newest)).toEqual([11, 10, 9]);
    expect(newest.more).toBe(false);
    expect(seqs(await list(base, 'latest=3&order=asc'))).toEqual([9, 10, 11]);
    const paged = await list(base, 'latest=3&order=asc&limit=2');
    expect(seqs(paged)).toEqual([9, 10]);
    expect(paged.more).toBe(true);
    const rest = await list(base, 'latest=3&order=asc&limit=2&offset=2');
    expect(seqs(rest)).toEqual([11]);
    expect(rest.more).toBe(false);
    expect(seqs(await list(base, 'latest=2&type=approval.,action.&order=asc'))).toEqual([7, 8]);
    expect(seqs(await list(base, 'latest=2&before_seq=9&order=asc'))).toEqual([7, 8]);
    expect(seqs(await list(base, 'latest=100&order=asc'))).toEqual(range(1, 11));
    const bad = await call<ErrorBody>(base, '/v1/ledger?latest=0');
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('latest');
  });
});

// ---------------------------------------------------------------------------------------

describe('timed seal', () => {
  const clock = createFakeClock('2026-03-01T00:00:00.000Z');
  let s: TestServer;
  let base: string;

  beforeAll(async () => {
    s = await buildTestServer({ clock });
    // The 30 s interval would call the same code; this test drives it by hand.
    s.runtime.sealer?.stop();
    base = await listen(s);
  });
  afterAll(async () => {
    await s.cleanup();
  });

  it('seals a partial segment once its oldest event is 10 minutes old, and a lone seal event rests', async () => {
    const sealer = s.runtime.sealer;
    if (sealer === null) throw new Error('no sealer');
    for (let i = 0; i < 4; i++) {
      const r = await call(base, '/v1/events', {
        method: 'POST',
        headers: asIngest(),
        body: { type: 'human.note', actor: 'human:ann', data: { i } },
      });
      expect(r.status).toBe(201);
    }
    expect(s.runtime.ledger.head().seq).toBe(7);
    expect(sealer.sealNow(true)).toBe(0);
    clock.advance(SEAL_AGE_MS - 1);
    expect(sealer.sealNow(true)).toBe(0);
    expect(sealer.sealNow(false)).toBe(0);
    clock.advance(1);
    expect(sealer.sealNow(true)).toBe(1);

    const segs = () =>
      s.runtime.ledgerStore.segments().map((g) => [g.segment, g.first_seq, g.last_seq]);
    expect(segs()).toEqual([[1, 1, 7]]);
    const sealed = await list(base, 'type=ledger.');
    expect(sealed.events).toHaveLength(1);
    expect(sealed.events[0]).toMatchObject({
      seq: 8,
      type: SEALED_TYPE,
      actor: 'system',
      ts: '2026-03-01T00:10:00.000Z',
      data: { segment: 1, first_seq: 1, last_seq: 7 },
    });
    expect(sealed.checkpoint).toBe(s.runtime.ledgerStore.lastSegment()?.checkpoint);

    // Only the seal event is unsealed: no matter how long, no further timed seal.
    clock.advance(3 * SEAL_AGE_MS);
    expect(sealer.sealNow(true)).toBe(0);
    expect(s.runtime.ledger.head().seq).toBe(8);
    expect(segs()).toEqual([[1, 1, 7]]);

    const v = await call<VerifyBody>(base, '/v1/ledger/verify');
    expect(v.body).toMatchObject({
      ok: true,
      checked: 8,
      segments: 1,
      sealed_through: 7,
      failure: null,
    });

    // A new event arrives: the oldest unsealed event (the seal, at 00:10) is old, so it seals now.
    const r = await call<{ seq: number }>(base, '/v1/events', {
      method: 'POST',
      headers: asIngest(),
      body: { type: 'human.note', actor: 'human:ann' },
    });
    expect(r.body.seq).toBe(9);
    expect(sealer.sealNow(true)).toBe(1);
    expect(segs()).toEqual([
      [1, 1, 7],
      [2, 8, 9],
    ]);
    const v2 = await call<VerifyBody>(base, '/v1/ledger/verify');
    expect(v2.body).toMatchObject({
      ok: true,
      checked: 10,
      segments: 2,
      sealed_through: 9,
      failure: null,
    });
  });
});

// ---------------------------------------------------------------------------------------

describe('a ledger of more than 2,000 events', () => {
  let s: TestServer;
  let base: string;
  const temps: string[] = [];
  let oldCopy: string; // svc.db backed up right after the first seal
  let oldHead: number;

  const bulk = (from: number, n: number): Promise<void> =>
    s.runtime.writer.transact(() => {
      for (let i = from; i < from + n; i++) {
        s.runtime.ledger.append({
          type: 'check.ran',
          actor: 'svc',
          data: { episode_id: 'ep-bulk', finding: null, i, host: `h${String(i % 7)}` },
          trace_id: `bulk-${String(Math.floor(i / 100))}`,
        });
      }
    });
  const sealedThrough = (n: number) =>
    waitFor(`sealed_through ${String(n)}`, async () => {
      const st = await call<{ ledger: { sealed_through: number } }>(base, '/v1/status');
      return st.body.ledger.sealed_through >= n ? st.body.ledger.sealed_through : undefined;
    });

  beforeAll(async () => {
    s = await buildTestServer();
    base = await listen(s);
    await bulk(0, 700);
    await bulk(700, 700); // head 1403: segment 1 is due
    expect(await sealedThrough(1000)).toBe(1000);
    const tmp = mkdtempSync(join(tmpdir(), 'svc-old-'));
    temps.push(tmp);
    oldCopy = join(tmp, 'svc.db');
    await s.runtime.db.backup(oldCopy);
    oldHead = s.runtime.ledger.head().seq;
    await bulk(1400, 700); // segment 2 is due
    expect(await sealedThrough(2000)).toBe(2000);
  });
  afterAll(async () => {
    await s.cleanup();
    for (const t of temps) rmSync(t, { recursive: true, force: true });
  });

  it('seals segments of exactly 1,000 events, each with a ledger.sealed event whose checkpoint verifies', async () => {
    const segments = s.runtime.ledgerStore.segments();
    expect(segments.map((g) => [g.segment, g.first_seq, g.last_seq, g.algorithm])).toEqual([
      [1, 1, 1000, 'ed25519'],
      [2, 1001, 2000, 'ed25519'],
    ]);
    const { events } = await exportAll(base);
    expect(events).toHaveLength(3 + 2100 + 2);
    const seals = events.filter((e) => e.type === SEALED_TYPE);
    expect(seals).toHaveLength(2);

    const key = publicKeyFromDataDir(s.runtime.config.dataDir, 'ed25519');
    const byHash = (from: number, to: number) =>
      events.slice(from - 1, to).map((e) => Buffer.from(e.hash, 'hex'));
    segments.forEach((g, i) => {
      const seal = seals[i];
      if (seal === undefined) throw new Error('missing seal event');
      expect(seal.seq).toBeGreaterThan(g.last_seq);
      expect(seal.actor).toBe('system');
      const digest = merkleRoot(byHash(g.first_seq, g.last_seq));
      expect(g.digest.equals(digest)).toBe(true);
      expect(seal.data).toEqual({
        segment: g.segment,
        first_seq: g.first_seq,
        last_seq: g.last_seq,
        digest: digest.toString('base64'),
        checkpoint: g.checkpoint,
      });
      const verdict = verifyCheckpoint(String(seal.data['checkpoint']), key, s.runtime.keyName);
      if (!verdict.ok) throw new Error(verdict.why);
      expect(verdict.body.size).toBe(g.last_seq);
      expect(verdict.body.root.toString('hex')).toBe(events[g.last_seq - 1]?.hash);
      expect(verdict.body.segment).toBe(g.segment);
      expect(verdict.body.firstSeq).toBe(g.first_seq);
      expect(verdict.body.digest.equals(digest)).toBe(true);
      const previous = segments[i - 1];
      expect(verdict.body.prevSealHash?.toString('hex') ?? null).toBe(
        previous === undefined ? null : sealHash(previous.checkpoint).toString('hex'),
      );
    });

    const v = await call<VerifyBody>(base, '/v1/ledger/verify');
    expect(v.body).toMatchObject({
      ok: true,
      checked: 2105,
      segments: 2,
      sealed_through: 2000,
      failure: null,
      head: { seq: 2105 },
    });
  });

  it('GET /v1/ledger carries the newest checkpoint', async () => {
    const page = await list(base, 'limit=1');
    expect(page.checkpoint).toBe(s.runtime.ledgerStore.lastSegment()?.checkpoint);
    expect(page.checkpoint).toContain('\n2000\n');
  });

  it('incremental export returns every event exactly once, in order, re-chaining to the head', async () => {
    const { events, pages, last } = await exportAll(base);
    expect(pages).toBe(2);
    expect(events.map((e) => e.seq)).toEqual(range(1, 2105));
    const head = rechain(events);
    expect(last.head).toEqual({ seq: 2105, hash: head });
    const v = await call<VerifyBody>(base, '/v1/ledger/verify');
    expect(v.body.head).toEqual({ seq: 2105, hash: head });
    // The export verifies offline against the checkpoint it carries.
    const verdict = verifyCheckpoint(
      last.checkpoint ?? '',
      publicKeyFromDataDir(s.runtime.config.dataDir, 'ed25519'),
      s.runtime.keyName,
    );
    if (!verdict.ok) throw new Error(verdict.why);
    expect(verdict.body.root.toString('hex')).toBe(events[verdict.body.size - 1]?.hash);
  });

  describe('tampered in the SQLite file', () => {
    let checkpointFile: string;
    let headAfterStop: number;

    beforeAll(async () => {
      const tmp = mkdtempSync(join(tmpdir(), 'svc-cp-'));
      temps.push(tmp);
      checkpointFile = join(tmp, 'checkpoint.txt');
      writeFileSync(checkpointFile, s.runtime.ledgerStore.lastSegment()?.checkpoint ?? '');
      await s.stop();
      headAfterStop = (await verifyFolder(s.dir)).head.seq;
    });

    /** A copy of the stopped server's folder, changed with `change` directly in svc.db. */
    function tamper(change: (db: Database.Database) => void): string {
      const dir = mkdtempSync(join(tmpdir(), 'svc-tamper-'));
      temps.push(dir);
      cpSync(s.dir, dir, { recursive: true });
      const db = new Database(join(dir, 'data', 'svc.db'));
      try {
        db.exec(
          'DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete; DROP TRIGGER ledger_segments_no_update; DROP TRIGGER ledger_segments_no_delete;',
        );
        change(db);
      } finally {
        db.close();
      }
      return dir;
    }
    const failureOf = async (dir: string) => (await verifyFolder(dir)).failure;

    it('the untouched copy verifies, also against the saved checkpoint', async () => {
      expect(headAfterStop).toBe(2106); // + system.stopped
      const dir = tamper(() => undefined);
      expect(await verifyFolder(dir)).toMatchObject({
        ok: true,
        checked: 2106,
        segments: 2,
        sealed_through: 2000,
      });
      const r = await runCli(testEnv(dir, join(dir, 'machine-id')), [
        'ledger-verify',
        '--checkpoint',
        checkpointFile,
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /^ledger verifies: 2106 events, 2 segments sealed through seq 2000, head seq 2106 \(\d+ events\/s\)\n$/,
      );
    });

    it('(a) data of a row inside a sealed segment changed: chain at that seq', async () => {
      const dir = tamper((db) =>
        db.prepare(`UPDATE ledger SET data = json_set(data, '$.i', 9999) WHERE seq = 1500`).run(),
      );
      expect(await failureOf(dir)).toMatchObject({ seq: 1500, check: 'chain' });
    });

    it('(b) a row after the last seal changed: chain at that seq', async () => {
      const dir = tamper((db) =>
        db.prepare(`UPDATE ledger SET actor = 'human:mallory' WHERE seq = 2050`).run(),
      );
      const report = await verifyFolder(dir);
      expect(report.failure).toMatchObject({ seq: 2050, check: 'chain' });
      expect(report.checked).toBe(2049);
    });

    it('(c) a row deleted: sequence at the deleted seq', async () => {
      const dir = tamper((db) => db.prepare('DELETE FROM ledger WHERE seq = 1500').run());
      expect(await failureOf(dir)).toMatchObject({ seq: 1500, check: 'sequence' });
    });

    it('(d) two adjacent rows swapped: chain at the lower seq', async () => {
      const dir = tamper((db) => {
        type Row = {
          ts: string;
          type: string;
          category: string;
          actor: string;
          data: string;
          reason: string | null;
          trace_id: string | null;
          hash: Buffer;
        };
        const get = db.prepare<[number], Row>(
          'SELECT ts, type, category, actor, data, reason, trace_id, hash FROM ledger WHERE seq = ?',
        );
        const put = db.prepare(
          'UPDATE ledger SET ts = ?, type = ?, category = ?, actor = ?, data = ?, reason = ?, trace_id = ?, hash = ? WHERE seq = ?',
        );
        const a = get.get(1500);
        const b = get.get(1501);
        if (a === undefined || b === undefined) throw new Error('rows missing');
        expect(a.data).not.toBe(b.data);
        put.run(b.ts, b.type, b.category, b.actor, b.data, b.reason, b.trace_id, b.hash, 1500);
        put.run(a.ts, a.type, a.category, a.actor, a.data, a.reason, a.trace_id, a.hash, 1501);
      });
      expect(await failureOf(dir)).toMatchObject({ seq: 1500, check: 'chain' });
    });

    it('(e) a row rewritten and every later hash recomputed: digest at the first seq of its segment', async () => {
      const dir = tamper((db) => {
        const rows = db
          .prepare<[number], RawEvent>(
            'SELECT seq, ts, type, actor, data, reason, trace_id FROM ledger WHERE seq >= ? ORDER BY seq',
          )
          .all(1500);
        const prevRow = db
          .prepare<[number], { hash: Buffer }>('SELECT hash FROM ledger WHERE seq = ?')
          .get(1499);
        if (prevRow === undefined) throw new Error('row 1499 missing');
        let prev = prevRow.hash;
        const put = db.prepare('UPDATE ledger SET data = ?, hash = ? WHERE seq = ?');
        for (const row of rows) {
          const data =
            row.seq === 1500
              ? canonicalJson({ ...(JSON.parse(row.data) as object), i: 9999 })
              : row.data;
          prev = chainHash(prev, { ...row, data });
          put.run(data, prev, row.seq);
        }
      });
      const report = await verifyFolder(dir);
      expect(report.failure).toMatchObject({ seq: 1001, check: 'digest', segment: 2 });
      expect(report.checked).toBe(2000); // the chain itself re-verified up to the segment end
    });

    it('(f) one byte of a seal signature changed: seal at the segment first seq', async () => {
      const dir = tamper((db) => {
        const row = db
          .prepare<[], { checkpoint: string }>(
            'SELECT checkpoint FROM ledger_segments WHERE segment = 2',
          )
          .get();
        if (row === undefined) throw new Error('no segment 2');
        const lines = row.checkpoint.split('\n');
        const sigIndex = lines.findIndex((l) => l.startsWith('\u2014 '));
        const parts = (lines[sigIndex] ?? '').split(' ');
        const sig = Buffer.from(parts[2] ?? '', 'base64');
        sig[20] = (sig[20] ?? 0) ^ 0x01; // past the 4-byte key id: the signature itself
        parts[2] = sig.toString('base64');
        lines[sigIndex] = parts.join(' ');
        const changed = lines.join('\n');
        expect(changed).not.toBe(row.checkpoint);
        db.prepare('UPDATE ledger_segments SET checkpoint = ? WHERE segment = 2').run(changed);
      });
      expect(await failureOf(dir)).toMatchObject({ seq: 1001, check: 'seal', segment: 2 });
    });

    it('(g) a segment digest changed: digest at the segment first seq', async () => {
      const dir = tamper((db) => {
        const row = db
          .prepare<[], { digest: Buffer }>('SELECT digest FROM ledger_segments WHERE segment = 2')
          .get();
        if (row === undefined) throw new Error('no segment 2');
        const digest = Buffer.from(row.digest);
        digest[0] = (digest[0] ?? 0) ^ 0x80;
        db.prepare('UPDATE ledger_segments SET digest = ? WHERE segment = 2').run(digest);
      });
      expect(await failureOf(dir)).toMatchObject({ seq: 1001, check: 'digest', segment: 2 });
    });

    it('(h) the sealed tail deleted with its seal: the checkpoint beside the database catches it; without that file, a checkpoint saved elsewhere does', async () => {
      const dir = tamper((db) => {
        db.prepare('DELETE FROM ledger_segments WHERE segment = 2').run();
        db.prepare('DELETE FROM ledger WHERE seq > 1000').run();
      });
      const beside = join(dir, 'data', 'ledger-checkpoint.txt');
      expect((await verifyFolder(dir)).failure).toMatchObject({
        seq: 1001,
        check: 'checkpoint',
        message: expect.stringContaining(
          `the checkpoint saved in ${beside}: the saved checkpoint covers seq 2000 but the ledger ends at seq 1000`,
        ) as unknown,
      });
      // A log cannot prove its own completeness: with the file gone too, only a copy elsewhere.
      rmSync(beside);
      expect(await verifyFolder(dir)).toMatchObject({
        ok: true,
        checked: 1000,
        segments: 1,
        sealed_through: 1000,
        head: { seq: 1000 },
      });
      const json = await runCli(testEnv(dir, join(dir, 'machine-id')), [
        'ledger-verify',
        '--checkpoint',
        checkpointFile,
        '--json',
      ]);
      expect(json.code).toBe(1);
      expect((JSON.parse(json.stdout) as VerifyBody).failure).toMatchObject({
        seq: 1001,
        check: 'checkpoint',
      });
      const text = await runCli(testEnv(dir, join(dir, 'machine-id')), [
        'ledger-verify',
        '--checkpoint',
        checkpointFile,
      ]);
      expect(text.code).toBe(1);
      expect(text.stderr).toMatch(
        /^ledger verify FAILED at seq 1001 \(checkpoint\): the saved checkpoint covers seq 2000 but the ledger ends at seq 1000/,
      );
    });

    it('(i) an older copy of the database restored: the checkpoint beside the database catches it; without that file, a checkpoint saved elsewhere does', async () => {
      const dir = tamper(() => undefined);
      rmSync(join(dir, 'data', 'svc.db-wal'), { force: true });
      rmSync(join(dir, 'data', 'svc.db-shm'), { force: true });
      cpSync(oldCopy, join(dir, 'data', 'svc.db'));
      expect(oldHead).toBeLessThan(2000);
      expect((await verifyFolder(dir)).failure).toMatchObject({
        seq: oldHead + 1,
        check: 'checkpoint',
      });
      rmSync(join(dir, 'data', 'ledger-checkpoint.txt'));
      expect(await verifyFolder(dir)).toMatchObject({
        ok: true,
        checked: oldHead,
        segments: 1,
        sealed_through: 1000,
        head: { seq: oldHead },
      });
      const json = await runCli(testEnv(dir, join(dir, 'machine-id')), [
        'ledger-verify',
        '--checkpoint',
        checkpointFile,
        '--json',
      ]);
      expect(json.code).toBe(1);
      expect((JSON.parse(json.stdout) as VerifyBody).failure).toMatchObject({
        seq: oldHead + 1,
        check: 'checkpoint',
      });
    });
  });
});
