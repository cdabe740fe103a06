// A full disk, as SQLite sees it (max_page_count at the current size, so inserts fail with
// SQLITE_FULL): POST /v1/events answers 503 storage_unavailable, never 4xx or 500, nothing is
// half-written, and writes resume once there is room again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WRITER_QUEUE } from '../db/writer.js';
import { asAdmin, asIngest, buildTestServer, type TestServer } from '../testing/test-server.js';

interface VerifyBody {
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string | null };
  failure: unknown;
}
interface ListBody {
  events: { seq: number; type: string; data: Record<string, unknown> }[];
  head: { seq: number; hash: string | null };
}

describe('storage full', () => {
  let s: TestServer;
  let base: string;

  const post = async (body: Record<string, unknown>) => {
    const res = await fetch(`${base}/v1/events`, {
      method: 'POST',
      headers: { ...asIngest(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as { seq?: number; error?: string; message?: string },
    };
  };
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}`, { headers: asAdmin() });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };
  const big = (tag: string) => ({
    type: 'human.note',
    actor: 'human:ann',
    data: { tag, blob: 'x'.repeat(64_000) },
  });
  const small = (tag: string) => ({ type: 'human.note', actor: 'human:ann', data: { tag } });
  const full = () => {
    const pages = s.runtime.db.pragma('page_count', { simple: true }) as number;
    s.runtime.db.pragma(`max_page_count = ${String(pages)}`);
  };
  const room = () => {
    s.runtime.db.pragma('max_page_count = 1073741823');
  };

  beforeAll(async () => {
    s = await buildTestServer();
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const address = s.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${String(address.port)}`;
    expect((await post(small('before'))).status).toBe(201);
  });
  afterAll(async () => {
    room();
    await s.cleanup();
  });

  it('answers 503 storage_unavailable when SQLite cannot commit, with nothing half-written', async () => {
    const before = await get<VerifyBody>('/v1/ledger/verify');
    expect(before).toMatchObject({ ok: true, checked: 4, head: { seq: 4 } });

    full();
    const r = await post(big('refused'));
    expect(r.status).toBe(503);
    expect(r.body.error).toBe('storage_unavailable');
    expect(r.body.message).toContain('SQLITE_FULL');

    const after = await get<VerifyBody>('/v1/ledger/verify');
    expect(after).toMatchObject({ ok: true, checked: 4, failure: null });
    expect(after.head).toEqual(before.head);
    const listed = await get<ListBody>('/v1/ledger?q=refused');
    expect(listed.events).toEqual([]);
    expect(s.runtime.ledger.headSeq()).toBe(4);
    // Reads keep working while writes are refused.
    expect((await get<{ ledger: { seq: number } }>('/v1/status')).ledger.seq).toBe(4);
  });

  it('concurrent appends in one group: each is 201 and stored, or 503 and absent; never 4xx or 500', async () => {
    full();
    const bodies = [small('c0'), big('c1'), small('c2'), small('c3'), big('c4'), small('c5')];
    const results = await Promise.all(bodies.map((b) => post(b)));
    for (const r of results) {
      expect([201, 503], JSON.stringify(r.body)).toContain(r.status);
      if (r.status === 503) expect(r.body.error).toBe('storage_unavailable');
    }
    // The big ones cannot fit.
    expect(results[1]?.status).toBe(503);
    expect(results[4]?.status).toBe(503);

    const stored = (await get<ListBody>('/v1/ledger?order=asc&after_seq=4')).events;
    const acked = results
      .flatMap((r, i) => (r.status === 201 ? [{ seq: r.body.seq, tag: `c${String(i)}` }] : []))
      .sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    expect(stored.map((e) => ({ seq: e.seq, tag: e.data['tag'] }))).toEqual(acked);
    const v = await get<VerifyBody>('/v1/ledger/verify');
    expect(v).toMatchObject({
      ok: true,
      checked: 4 + acked.length,
      head: { seq: 4 + acked.length },
    });
    expect(s.runtime.ledger.headSeq()).toBe(4 + acked.length);
  });

  it('writes resume, without a gap, once there is room again', async () => {
    full();
    expect((await post(big('still full'))).status).toBe(503);
    room();
    const head = (await get<VerifyBody>('/v1/ledger/verify')).head.seq;
    const r = await post(big('after'));
    expect(r.status).toBe(201);
    expect(r.body.seq).toBe(head + 1);
    const v = await get<VerifyBody>('/v1/ledger/verify');
    expect(v).toMatchObject({
      ok: true,
      checked: head + 1,
      head: { seq: head + 1 },
      failure: null,
    });
    const listed = await get<ListBody>('/v1/ledger?limit=1');
    expect(listed.events[0]).toMatchObject({
      seq: head + 1,
      type: 'human.note',
      data: { tag: 'after' },
    });
  });

  it('past the writer queue bound, an append answers 503 storage_busy at once and is not stored', async () => {
    room();
    const head = s.runtime.ledger.headSeq();
    // A burst of senders: every turn the queue is filled to its bound again, so the request
    // arrives (in the poll phase) while the writer already holds as many jobs as it queues.
    let burst = true;
    const waiting: Promise<unknown>[] = [];
    const refill = (): void => {
      if (!burst) return;
      while (s.runtime.writer.depth() < MAX_WRITER_QUEUE)
        waiting.push(s.runtime.writer.transact(() => undefined));
      setImmediate(refill);
    };
    refill();
    const refused = await post(small('over the bound'));
    burst = false;
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('storage_busy');
    await Promise.all(waiting);
    expect(s.runtime.ledger.headSeq()).toBe(head);
    expect((await get<ListBody>('/v1/ledger?q=over%20the%20bound')).events).toEqual([]);
    const r = await post(small('after the burst'));
    expect(r.status).toBe(201);
    expect(r.body.seq).toBe(head + 1);
  });
});
