// GET /v1/live/stream over a real socket: the seq as it moves (coalesced), Last-Event-ID,
// heartbeats, the caps (503), and every way a stream ends: the client leaving, sign-out,
// session expiry, loss of access, and the server closing (which must not wait on streams).
import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { SESSION_IDLE_MS } from '../access/index.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  bearer,
  buildTestServer,
  INGEST_TOKEN,
  personOn,
  type TestServer,
} from '../testing/test-server.js';

const clock = createFakeClock('2026-11-22T10:00:00.000Z');
let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await buildTestServer({
    clock,
    delayMs: 0,
    liveStream: { heartbeatMs: 100, maxPerCaller: 3, maxTotal: 5 },
  });
  base = await server.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.cleanup();
});

interface Sse {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** Every block received so far, as text. */
  readonly text: () => string;
  /** The seq of each `event: seq` received so far. */
  readonly seqs: () => number[];
  /** Resolves when the server ends the answer. */
  readonly ended: Promise<void>;
  /** Resolves once `test` holds for the text received (rejects after `ms`). */
  until(test: (text: string) => boolean, ms?: number): Promise<void>;
  close(): void;
  /** The answer's JSON body when not 200. */
  readonly body: () => unknown;
}

function openStream(token: string | null, headers: Record<string, string> = {}): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/v1/live/stream`, {
      headers: { ...(token === null ? {} : bearer(token)), ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.setEncoding('utf8');
      let text = '';
      const waiters = new Set<() => void>();
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const w of waiters) w();
      });
      const ended = new Promise<void>((done) => {
        res.on('end', done);
        res.on('close', done);
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => text,
        seqs: () =>
          [...text.matchAll(/event: seq\ndata: \{"seq":(\d+)\}/g)].map((m) => Number(m[1])),
        ended,
        until: (test, ms = 3000) =>
          new Promise<void>((ok, fail) => {
            const check = () => {
              if (!test(text)) return;
              waiters.delete(check);
              clearTimeout(timer);
              ok();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`timed out waiting; received:\n${text}`));
            }, ms);
            waiters.add(check);
            check();
          }),
        close: () => {
          req.destroy();
        },
        body: () => JSON.parse(text) as unknown,
      });
    });
    req.end();
  });
}

const postEvent = (note: string) =>
  server.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: bearer(INGEST_TOKEN),
    payload: { type: 'human.action', actor: 'human:test', data: { note } },
  });

const head = async (): Promise<number> =>
  (await server.app.inject({ method: 'GET', url: '/v1/live', headers: asAdmin() })).json<{
    seq: number;
  }>().seq;

const settled = async (): Promise<void> => {
  for (let i = 0; i < 20 && server.liveHub.size() > 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('GET /v1/live/stream', () => {
  it('sends retry and the current seq at once, then each new seq, never compressed', async () => {
    const s = await openStream(ADMIN_TOKEN, { 'accept-encoding': 'gzip, br' });
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(s.headers['content-encoding']).toBeUndefined();
    expect(s.headers['cache-control']).toBe('no-cache, no-transform');
    const now = await head();
    await s.until((t) => t.includes('event: seq'));
    expect(s.text()).toMatch(/^retry: \d+\n/);
    expect(s.text()).toContain(`id: ${String(now)}\nevent: seq\ndata: {"seq":${String(now)}}\n\n`);

    expect((await postEvent('one')).statusCode).toBe(201);
    const moved = await head();
    expect(moved).toBeGreaterThan(now);
    await s.until(() => s.seqs().includes(moved));
    s.close();
    await settled();
  });

  it('coalesces a burst of commits into a few events, the last one the head', async () => {
    const s = await openStream(ADMIN_TOKEN);
    await s.until(() => s.seqs().length === 1);
    const started = performance.now();
    for (let i = 0; i < 30; i++)
      expect((await postEvent(`burst ${String(i)}`)).statusCode).toBe(201);
    const last = await head();
    await s.until(() => s.seqs().at(-1) === last);
    const seconds = (performance.now() - started) / 1000;
    const events = s.seqs().length - 1;
    // At most one event per 250 ms, plus the one that opens a quiet spell.
    expect(events).toBeLessThanOrEqual(Math.ceil(seconds * 4) + 2);
    expect(events).toBeLessThan(30);
    expect(s.seqs()).toEqual([...s.seqs()].sort((a, b) => a - b));
    s.close();
    await settled();
  });

  it('honours Last-Event-ID: nothing until seq moves past it; an older one gets the head at once', async () => {
    const now = await head();
    const current = await openStream(ADMIN_TOKEN, { 'last-event-id': String(now) });
    const older = await openStream(ADMIN_TOKEN, { 'last-event-id': String(now - 1) });
    await older.until(() => older.seqs().includes(now));
    await current.until((t) => t.includes(': hb'));
    expect(current.seqs()).toEqual([]);
    await postEvent('after last id');
    const moved = await head();
    await current.until(() => current.seqs().includes(moved));
    current.close();
    older.close();
    await settled();
  });

  it('sends a comment heartbeat while nothing moves', async () => {
    const s = await openStream(ADMIN_TOKEN);
    await s.until((t) => (t.match(/^: hb$/gm) ?? []).length >= 2);
    s.close();
    await settled();
  });

  it('asks the same credential as GET /v1/live: 401 without, 403 for the ingest token', async () => {
    const none = await openStream(null);
    expect(none.status).toBe(401);
    await none.ended;
    expect(none.body()).toMatchObject({ error: 'no_credentials' });
    const ingest = await openStream(INGEST_TOKEN);
    expect(ingest.status).toBe(403);
    await ingest.ended;
    expect(ingest.body()).toMatchObject({ error: 'role_required', role: 'viewer' });
    const bad = await openStream('svs_not-a-session');
    expect(bad.status).toBe(401);
    await bad.ended;
    expect(server.liveHub.size()).toBe(0);
  });

  it('caps streams per caller and in all with 503 too_many_streams; a closed one frees its place', async () => {
    const mine = await Promise.all([1, 2, 3].map(() => openStream(ADMIN_TOKEN)));
    expect(mine.map((s) => s.status)).toEqual([200, 200, 200]);
    const fourth = await openStream(ADMIN_TOKEN);
    expect(fourth.status).toBe(503);
    await fourth.ended;
    expect(fourth.body()).toMatchObject({ error: 'too_many_streams' });

    const viewer = await personOn(server, 'vera@example.com', 'viewer');
    const others = await Promise.all([1, 2].map(() => openStream(viewer.token)));
    expect(others.map((s) => s.status)).toEqual([200, 200]);
    const sixth = await openStream(viewer.token);
    expect(sixth.status).toBe(503);
    await sixth.ended;
    expect(sixth.body()).toMatchObject({ error: 'too_many_streams' });
    expect(server.liveHub.size()).toBe(5);

    others[0]?.close();
    for (let i = 0; i < 50 && server.liveHub.size() > 4; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const again = await openStream(viewer.token);
    expect(again.status).toBe(200);
    for (const s of [...mine, ...others, again]) s.close();
    await settled();
  });

  it('forgets a client that disconnects mid-stream: no stream, no timer, one commit listener', async () => {
    const before = server.liveHub.size();
    const streams = await Promise.all([1, 2].map(() => openStream(ADMIN_TOKEN)));
    await Promise.all(streams.map((s) => s.until(() => s.seqs().length > 0)));
    expect(server.liveHub.size()).toBe(before + 2);
    for (const s of streams) s.close();
    await settled();
    expect(server.liveHub.size()).toBe(0);
    expect(server.liveHub.timers()).toBe(0);
    // A commit after they left writes to nobody and starts nothing.
    expect((await postEvent('nobody listens')).statusCode).toBe(201);
    expect(server.liveHub.timers()).toBe(0);
  });

  it('ends the stream on sign-out, with event: end', async () => {
    const v = await personOn(server, 'sam@example.com', 'viewer');
    const s = await openStream(v.token);
    expect(s.status).toBe(200);
    await s.until(() => s.seqs().length > 0);
    const out = await server.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: bearer(v.token),
    });
    expect(out.statusCode, out.body).toBeLessThan(300);
    await s.ended;
    expect(s.text()).toContain('event: end\ndata: {"reason":"signed_out"}');
    expect(server.liveHub.size('user:' + v.user.id)).toBe(0);
  });

  it('ends the stream when the session expires (checked on the heartbeat)', async () => {
    const v = await personOn(server, 'ida@example.com', 'viewer');
    const s = await openStream(v.token);
    await s.until(() => s.seqs().length > 0);
    clock.advance(SESSION_IDLE_MS + 1000);
    await s.ended;
    expect(s.text()).toContain('event: end');
    expect((await openStream(v.token)).status).toBe(401);
  });

  it('ends the stream when the person loses access (disabled)', async () => {
    const v = await personOn(server, 'dan@example.com', 'responder');
    const s = await openStream(v.token);
    await s.until(() => s.seqs().length > 0);
    const off = await server.app.inject({
      method: 'PUT',
      url: `/v1/users/${v.user.id}`,
      headers: asAdmin(),
      payload: { disabled: true },
    });
    expect(off.statusCode, off.body).toBe(200);
    await s.ended;
    expect(s.text()).toContain('event: end');
    await settled();
    expect(server.liveHub.size()).toBe(0);
  });

  it('is listed in the OpenAPI document', async () => {
    const doc = (
      await server.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: asAdmin() })
    ).json<{ paths: Record<string, { get?: { responses?: Record<string, unknown> } }> }>();
    expect(Object.keys(doc.paths['/v1/live/stream']?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '401', '403', '503']),
    );
  });
});

describe('closing the server with streams open', () => {
  it('ends every stream and does not wait on them', async () => {
    const other = await buildTestServer({ delayMs: 0 });
    const url = await other.app.listen({ port: 0, host: '127.0.0.1' });
    const saved = base;
    base = url;
    try {
      const streams = await Promise.all([1, 2].map(() => openStream(ADMIN_TOKEN)));
      await Promise.all(streams.map((s) => s.until(() => s.seqs().length > 0)));
      const started = performance.now();
      await other.cleanup();
      expect(performance.now() - started).toBeLessThan(5000);
      await Promise.all(streams.map((s) => s.ended));
      for (const s of streams) expect(s.text()).toContain('event: end\ndata: {"reason":"closing"}');
    } finally {
      base = saved;
    }
  });
});
