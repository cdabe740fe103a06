// GET /v1/ledger/verify on a real server and SQLite file: one verify runs at a time, callers
// that arrive meanwhile share it, and its report is kept until the head moves, for a few
// seconds at most: a row changed behind the service's back is found when asked again.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { tamper } from '../testing/tamper.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { VERIFY_KEEP_MS } from './ledger-read.service.js';

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

describe('a kept report does not hide a row changed behind the service', () => {
  it('verifies again after VERIFY_KEEP_MS although the head has not moved', async () => {
    const clock = createFakeClock('2026-11-29T06:00:00.000Z');
    const s = await buildTestServer({ clock });
    try {
      const verify = async () =>
        (await s.app.inject({ url: '/v1/ledger/verify', headers: asAdmin() })).json<VerifyBody>();
      const first = await verify();
      expect(first).toMatchObject({ ok: true });
      const head = s.runtime.ledger.head().seq;
      expect(head).toBeGreaterThan(2);
      // A middle row, so the head's seq and hash stay as they were.
      tamper(join(s.env['SVC_DATA'] ?? '', 'svc.db'), 'ledger', { actor: 'mallory' }, { seq: 2 });
      expect(await verify()).toEqual(first); // within the window: the kept report
      clock.set(new Date(Date.parse(first.verified_at) + VERIFY_KEEP_MS).toISOString());
      expect(await verify()).toMatchObject({ ok: false, failure: { seq: 2 } });
    } finally {
      await s.cleanup();
    }
  });
});
