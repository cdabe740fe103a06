// GET /v1/ledger/verify on a real server and SQLite file: one verify runs at a time, callers
// that arrive meanwhile share it, and its report is kept until the head moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

interface VerifyBody {
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string | null };
  verified_at: string;
  duration_ms: number;
}

describe('GET /v1/ledger/verify runs once at a time', () => {
  let s: TestServer;
  let base: string;

  const verify = async (): Promise<VerifyBody> => {
    const res = await fetch(`${base}/v1/ledger/verify`, { headers: asAdmin() });
    expect(res.status).toBe(200);
    return (await res.json()) as VerifyBody;
  };
  const append = (n: number): Promise<void> =>
    s.runtime.writer.transact(() => {
      for (let i = 0; i < n; i++)
        s.runtime.ledger.append({
          type: 'check.ran',
          actor: 'svc',
          data: { episode_id: 'ep-bulk', finding: null, i },
        });
    });

  beforeAll(async () => {
    s = await buildTestServer();
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const address = s.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${String(address.port)}`;
    await append(20_000);
    // The sealer closes 20 segments after that batch; wait until it rests.
    const until = Date.now() + 20_000;
    while (
      (s.runtime.ledgerStore.lastSegment()?.last_seq ?? 0) < 20_000 ||
      s.runtime.writer.depth() > 0
    ) {
      if (Date.now() > until) throw new Error('the ledger was not sealed');
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await s.cleanup();
  });

  it('concurrent requests share one run; the report is kept until the head moves', async () => {
    const head = s.runtime.ledger.head().seq;
    const reports = await Promise.all([1, 2, 3, 4, 5].map(() => verify()));
    const first = reports[0];
    if (first === undefined) throw new Error('no report');
    expect(typeof first.verified_at).toBe('string');
    expect(first).toMatchObject({ ok: true, checked: head, head: { seq: head } });
    for (const r of reports) expect(r).toEqual(first);

    // Nothing appended: the same report, not a new run.
    expect(await verify()).toEqual(first);
    // The reader's callers (the CLI, the doctor) share it too.
    expect((await s.runtime.reader.verify()).verified_at).toBe(first.verified_at);

    await append(1);
    const moved = await verify();
    expect(moved).toMatchObject({ ok: true, checked: head + 1, head: { seq: head + 1 } });
    expect(moved.verified_at).not.toBe(first.verified_at);
  });
});
