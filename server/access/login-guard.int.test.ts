// POST /v1/login in the whole service: a wrong admin token is recorded as a failed sign-in,
// answered after the wait, and counted per address with every other sign-in method.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer({ delayMs: 50 });
});
afterAll(async () => {
  await server.cleanup();
});

const login = (token: string, ip: string) =>
  server.app.inject({ method: 'POST', url: '/v1/login', payload: { token }, remoteAddress: ip });

describe('POST /v1/login with the sign-in guard', () => {
  it('records a wrong token as auth.sign_in_failed, never the token, after the wait', async () => {
    const started = performance.now();
    const res = await login('svs_wrong-token-0123456789', '10.9.0.1');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'bad_token' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    const page = await server.app.inject({
      method: 'GET',
      url: '/v1/ledger?type=auth.sign_in_failed&order=desc&limit=1',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const [event] = page.json<{ events: { data: Record<string, unknown> }[] }>().events;
    expect(event?.data).toMatchObject({
      method: 'admin-token',
      address: '10.9.0.1',
      why: 'bad_token',
    });
    expect(page.body).not.toContain('svs_wrong-token-0123456789');
  });

  it('throttles an address after 30 wrong tokens, and the right token still works elsewhere', async () => {
    for (let i = 0; i < 30; i++) expect((await login('wrong', '10.9.0.2')).statusCode).toBe(401);
    const refused = await login(ADMIN_TOKEN, '10.9.0.2');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'too_many_attempts' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const ok = await login(ADMIN_TOKEN, '10.9.0.3');
    expect(ok.statusCode).toBe(200);
  });

  it('reserves each attempt before the token is compared: concurrent guesses past the caps get 429', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => login('wrong', '10.9.0.4')));
    const codes = answers.map((r) => r.statusCode);
    // At most 8 attempts per address are in flight (each holds its place for the wait).
    expect(codes.filter((c) => c === 401).length).toBeLessThanOrEqual(8);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(12);
  });
});

describe('whose address counts (SVC_TRUST_PROXY)', () => {
  let proxied: TestServer;
  beforeAll(async () => {
    proxied = await buildTestServer({ delayMs: 10, env: { SVC_TRUST_PROXY: '10.7.7.7' } });
  });
  afterAll(async () => {
    await proxied.cleanup();
  });

  it('takes X-Forwarded-For only from a trusted proxy; anyone else is their own address', async () => {
    const wrong = (remoteAddress: string, forwarded: string) =>
      proxied.app.inject({
        method: 'POST',
        url: '/v1/login',
        payload: { token: 'wrong' },
        remoteAddress,
        headers: { 'x-forwarded-for': forwarded },
      });
    expect((await wrong('10.7.7.7', '203.0.113.7')).statusCode).toBe(401);
    expect((await wrong('10.8.8.8', '203.0.113.8')).statusCode).toBe(401);
    const page = await proxied.app.inject({
      method: 'GET',
      url: '/v1/ledger?type=auth.sign_in_failed&order=asc',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const events = page.json<{ events: { data: Record<string, unknown> }[] }>().events;
    expect(events.map((e) => e.data['address'])).toEqual(['203.0.113.7', '10.8.8.8']);
  });

  it('throttles the client behind the proxy, not the proxy itself', async () => {
    const login2 = (forwarded: string, token: string) =>
      proxied.app.inject({
        method: 'POST',
        url: '/v1/login',
        payload: { token },
        remoteAddress: '10.7.7.7',
        headers: { 'x-forwarded-for': forwarded },
      });
    for (let i = 0; i < 30; i++) await login2('203.0.113.20', 'wrong');
    expect((await login2('203.0.113.20', ADMIN_TOKEN)).statusCode).toBe(429);
    expect((await login2('203.0.113.21', ADMIN_TOKEN)).statusCode).toBe(200);
  });
});
