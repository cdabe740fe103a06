// POST /v1/login in the whole service: a wrong admin token is recorded as a failed sign-in,
// answered after the wait, and counted per address with every other sign-in method.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../shared/testing/test-server.js';

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
    const answers = await Promise.all(Array.from({ length: 30 }, () => login('wrong', '10.9.0.2')));
    expect(answers.every((r) => r.statusCode === 401)).toBe(true);
    const refused = await login(ADMIN_TOKEN, '10.9.0.2');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'too_many_attempts' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const ok = await login(ADMIN_TOKEN, '10.9.0.3');
    expect(ok.statusCode).toBe(200);
  });
});
