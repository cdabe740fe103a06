// GET /v1/live over HTTP: its strong ETag follows the ledger's seq, and If-None-Match is
// answered 304 with no body until something commits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, buildTestServer, postAlert, type TestServer } from '../testing/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer();
});
afterAll(async () => {
  await server.cleanup();
});

const live = (headers: Record<string, string> = {}) =>
  server.app.inject({ method: 'GET', url: '/v1/live', headers: { ...asAdmin(), ...headers } });

describe('GET /v1/live ETag', () => {
  it('carries a strong ETag and answers 304 to If-None-Match until seq moves', async () => {
    const first = await live();
    expect(first.statusCode).toBe(200);
    const tag = first.headers['etag'];
    expect(tag).toMatch(/^"[^"]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');

    const same = await live({ 'if-none-match': String(tag) });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect(same.headers['etag']).toBe(tag);
    // A list of tags and the weak form match too (RFC 9110 weak comparison).
    expect((await live({ 'if-none-match': `"other", W/${String(tag)}` })).statusCode).toBe(304);

    const res = await postAlert(server, { name: 'HighLatency', service: 'pay' });
    expect(res.statusCode, res.body).toBe(202);
    const moved = await live({ 'if-none-match': String(tag) });
    expect(moved.statusCode).toBe(200);
    expect(moved.headers['etag']).not.toBe(tag);
    const body = moved.json<{ seq: number; running: { service: string }[] }>();
    expect(body.seq).toBeGreaterThan(first.json<{ seq: number }>().seq);
    expect(body.running.map((r) => r.service)).toEqual(['pay']);
    expect((await live({ 'if-none-match': String(moved.headers['etag']) })).statusCode).toBe(304);
  });

  it('answers 200 to a tag it never gave, and still checks the credential first', async () => {
    expect((await live({ 'if-none-match': '"nope"' })).statusCode).toBe(200);
    const tag = String((await live()).headers['etag']);
    const anon = await server.app.inject({
      method: 'GET',
      url: '/v1/live',
      headers: { 'if-none-match': tag },
    });
    expect(anon.statusCode).toBe(401);
  });
});
