// GET /v1/episodes runs on read workers with their own connection: an answer still shows
// everything committed before the request (read-your-writes), a read racing a write sees
// the write whole or not at all, a worker waits for a seq it does not see yet (and gives up
// with a 503), and closing the server with a read in flight does not wait for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadPool } from '../db/read-pool.js';
import { workerScript } from '../db/worker-script.js';
import { StorageUnavailableError } from '../shared/errors.js';
import { createFakeClock } from '../shared/clock.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { seedEpisodes } from '../testing/episodes/episodes.js';
import type { ListJob, ListPage } from './list.service.js';
import { readSelection } from './list.params.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;
let ids: string[];

interface Body {
  seq: number;
  total: number;
  scorecard: { accuracy: { share: number | null; judged: number } };
}

beforeAll(async () => {
  server = await buildTestServer({ clock });
  const base = { t_open: '2026-11-21T10:00:00.000Z', t_close: '2026-11-21T10:10:00.000Z' };
  ids = seedEpisodes({ ...server.runtime, clock }, [
    { ...base, service: 'a' },
    { ...base, service: 'b' },
  ]).map(([id]) => id);
  clock.set('2026-11-22T12:00:00.000Z');
});
afterAll(async () => {
  await server.cleanup();
});

const list = () =>
  server.app.inject({ method: 'GET', url: '/v1/episodes?scorecard=1', headers: asAdmin() });

const judge = (verdict: 'same' | 'none') =>
  server.app.inject({
    method: 'POST',
    url: `/v1/episodes/${ids[0] ?? ''}/team`,
    headers: asAdmin(),
    payload: { verdict },
  });

describe('the list on read workers', () => {
  it('shows a write made just before the request, every time', async () => {
    expect((await list()).statusCode).toBe(200);
    for (let i = 0; i < 10; i++) {
      const verdict = i % 2 === 0 ? 'same' : 'none';
      const wrote = await judge(verdict);
      expect(wrote.statusCode).toBe(200);
      const res = await list();
      expect(res.statusCode).toBe(200);
      const body = res.json<Body>();
      expect(body.seq).toBeGreaterThanOrEqual(wrote.json<{ seq: number }>().seq);
      expect(body.scorecard.accuracy).toEqual(
        verdict === 'same' ? { judged: 1, share: 1 } : { judged: 0, share: null },
      );
    }
  });

  it('a read racing a write sees all of the write or none of it, with the seq it was read at', async () => {
    for (let i = 0; i < 10; i++) {
      const before = i % 2 === 0 ? 'none' : 'same';
      const after = i % 2 === 0 ? 'same' : 'none';
      expect((await judge(before)).statusCode).toBe(200);
      const [wrote, read] = await Promise.all([judge(after), list()]);
      const body = read.json<Body>();
      const seen = body.seq >= wrote.json<{ seq: number }>().seq ? after : before;
      expect(body.scorecard.accuracy.judged, `round ${String(i)}`).toBe(seen === 'same' ? 1 : 0);
    }
  });

  it('a worker waits for the seq the request saw committed, and gives up with a 503', async () => {
    const script = workerScript(import.meta.url, '../compose/list-worker');
    if (script === null) throw new Error('list-worker.ts is missing');
    const pool = createReadPool<ListJob, ListPage>({
      script,
      size: 1,
      workerData: { file: server.runtime.db.name, behindMs: 3000 },
      timeoutMs: 20_000,
      maxQueue: 4,
    });
    try {
      const job = (minSeq: number): ListJob => ({
        sel: readSelection({ limit: 50, offset: 0, sort: '-t_open', scorecard: '1' }, clock.now()),
        nowMs: clock.now(),
        minSeq,
        impact: null,
      });
      const head = server.runtime.ledger.headSeq();
      expect((await pool.run(job(head))).seq).toBe(head);
      let answered = false;
      const waiting = pool.run(job(head + 1)).finally(() => {
        answered = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(answered).toBe(false);
      const wrote = await judge('same');
      expect(wrote.statusCode).toBe(200);
      const page = await waiting;
      // The verdict's commit holds its label too: the page is read at the end of that commit.
      expect(page.seq).toBeGreaterThanOrEqual(wrote.json<{ seq: number }>().seq);
      expect(page.seq).toBe(server.runtime.ledger.headSeq());
      expect(page.scorecard?.accuracy).toEqual({ judged: 1, share: 1 });

      const never = await pool.run(job(head + 1000)).catch((e: unknown) => e);
      expect(never).toBeInstanceOf(StorageUnavailableError);
      expect(never).toMatchObject({ code: 'reads_behind' });
    } finally {
      await pool.close();
    }
  });
});

describe('closing with a read in flight', () => {
  it('answers the read 503 and closes without waiting for it', async () => {
    const other = await buildTestServer({ clock });
    try {
      const reading = other.app.inject({
        method: 'GET',
        url: '/v1/episodes?scorecard=1',
        headers: asAdmin(),
      });
      // Let the request reach the pool: its worker is still starting.
      await new Promise((r) => setImmediate(r));
      const t0 = Date.now();
      await other.stop();
      expect(Date.now() - t0).toBeLessThan(10_000);
      const res = await reading;
      expect(res.statusCode).toBe(503);
    } finally {
      await other.cleanup();
    }
  });
});
