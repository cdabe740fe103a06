// GET /v1/live over HTTP: its strong ETag follows the ledger's seq, and If-None-Match is
// answered 304 with no body until something commits.
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
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

describe('GET /v1/live rows', () => {
  it("carry the worst severity of the episode's signals and its incident", async () => {
    const warn = await postAlert(server, {
      name: 'DiskFilling',
      service: 'sevd',
      labels: { severity: 'warning' },
    });
    expect(warn.statusCode, warn.body).toBe(202);
    const row = async () =>
      (await live())
        .json<{ running: Record<string, unknown>[] }>()
        .running.find((r) => r['service'] === 'sevd');
    expect(await row()).toMatchObject({
      severity: 'warning',
      incident_id: expect.any(String) as string,
    });
    // A critical signal joining the episode makes it critical; an info one does not lower it.
    await postAlert(server, { name: 'Down', service: 'sevd', labels: { severity: 'critical' } });
    await postAlert(server, { name: 'Chatty', service: 'sevd', labels: { severity: 'info' } });
    expect((await row())?.['severity']).toBe('critical');
    // A signal without a severity label is unknown.
    await postAlert(server, { name: 'Plain', service: 'plaind' });
    const plain = (await live())
      .json<{ running: Record<string, unknown>[] }>()
      .running.find((r) => r['service'] === 'plaind');
    expect(plain?.['severity']).toBe('unknown');
  });
});

describe('compression of JSON answers', () => {
  const get = (url: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url, headers: { ...asAdmin(), ...headers } });

  it('compresses an answer over 1 KB when the client accepts gzip or br; the bodies decode equal', async () => {
    const plain = await get('/v1/ledger?limit=50');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);

    const gz = await get('/v1/ledger?limit=50', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['vary']).toMatch(/accept-encoding/i);
    expect(gz.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(plain.body);

    const br = await get('/v1/ledger?limit=50', { 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString('utf8')).toBe(plain.body);
  });

  it('leaves a small answer as it is', async () => {
    const small = await get('/v1/live', { 'accept-encoding': 'gzip' });
    expect(small.statusCode).toBe(200);
    expect(small.rawPayload.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toMatchObject({ seq: expect.any(Number) as number });
  });

  it('does not inflate request bodies: a gzip-encoded body is refused as before', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: {
        authorization: asAdmin()['authorization'] ?? '',
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      payload: gzipSync(JSON.stringify({ type: 'human.note', actor: 'human:x' })),
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });
});

describe('GET /v1/live attention facts', () => {
  it('carry the autonomy in force, the leading confidence and the action that needs a person', async () => {
    const res = await postAlert(server, { name: 'Errors', service: 'factd' });
    expect(res.statusCode, res.body).toBe(202);
    const row = async () =>
      (await live())
        .json<{ running: Record<string, unknown>[] }>()
        .running.find((r) => r['service'] === 'factd');
    const id = String((await row())?.['episode_id']);
    expect(await row()).toMatchObject({ autonomy: 'shadow', confidence: '', action: '' });

    const { ledger, writer } = server.runtime;
    const append = (type: string, data: Record<string, unknown>): void => {
      writer.transactNow(() => {
        ledger.append({ type, actor: 'system', trace_id: id, data: { episode_id: id, ...data } });
      });
    };
    append('investigation.started', { service: 'factd', alerts: ['Errors'], queue_s: 0 });
    const fix = { pack: 'host', id: 'restart', title: 'Restart', risk: 'low', kind: 'restart' };
    append('investigation.hypotheses', {
      packs: ['host'],
      hypotheses: [
        { cause: 'a', confidence: 'unproven' },
        { cause: 'b', confidence: 'suspected' },
        { cause: 'c', confidence: 'cleared' },
      ],
    });
    expect(await row()).toMatchObject({ confidence: 'suspected', action: '' });
    // The episode's own record says the same while it runs (its column is written at close).
    const detail = await server.app.inject({
      method: 'GET',
      url: `/v1/episodes/${id}`,
      headers: asAdmin(),
    });
    expect(detail.json()).toMatchObject({ live: true, confidence: 'suspected' });
    append('action.started', { fix, connector: 'ssh', call: '{}' });
    expect((await row())?.['action']).toBe('running');
    const held = String((await live()).headers['etag']);
    append('action.verify_failed', { fix, findings: [], detail: 'errors went on' });
    // The ETag moves with them: a client holding the old one is sent the new facts.
    const fresh = await live({ 'if-none-match': held });
    expect(fresh.statusCode).toBe(200);
    const facts = fresh.json<{ running: Record<string, unknown>[] }>();
    expect(facts.running.find((r) => r['service'] === 'factd')?.['action']).toBe('not_verified');
  });
});
