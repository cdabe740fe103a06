// A password change (PUT /v1/me) ends the person's other sessions, in the whole service: a
// stolen session does not outlive the password the person changed because of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, bearer, buildTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await buildTestServer({ delayMs: 10 });
});
afterAll(async () => {
  await server.cleanup();
});

const PASSWORD = 'correct horse battery staple 42';

async function bootstrap(): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/v1/auth/bootstrap',
    headers: asAdmin(),
    payload: { email: 'ann@lab.test', name: 'Ann' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ token: string }>().token;
}
const me = (token: string) =>
  server.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(token) });
const setPassword = (token: string, payload: object) =>
  server.app.inject({ method: 'PUT', url: '/v1/me', headers: bearer(token), payload });

describe('a password change', () => {
  it("ends the person's other sessions, each recorded, and keeps the one that changed it", async () => {
    const here = await bootstrap();
    const elsewhere = await bootstrap();
    expect((await me(elsewhere)).statusCode).toBe(200);
    expect((await setPassword(here, { password: PASSWORD })).statusCode).toBe(200);
    expect((await me(here)).statusCode).toBe(200);
    expect((await me(elsewhere)).statusCode).toBe(401);

    const signIn = await server.app.inject({
      method: 'POST',
      url: '/v1/auth/password',
      payload: { email: 'ann@lab.test', password: PASSWORD },
    });
    const third = signIn.json<{ token: string }>().token;
    const changed = await setPassword(here, {
      password: 'another long password 43',
      current_password: PASSWORD,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await me(third)).statusCode).toBe(401);
    expect((await me(here)).statusCode).toBe(200);

    const page = await server.app.inject({
      method: 'GET',
      url: '/v1/ledger?type=auth.signed_out&order=asc',
      headers: asAdmin(),
    });
    const ended = page.json<{ events: { data: { why: string } }[] }>().events;
    expect(ended.map((e) => e.data.why)).toEqual(['password_changed', 'password_changed']);
  });

  it('a wrong current password ends nothing', async () => {
    const here = await bootstrap();
    const elsewhere = await bootstrap();
    const res = await setPassword(here, {
      password: 'a third long password',
      current_password: 'no',
    });
    expect(res.statusCode).toBe(400);
    expect((await me(elsewhere)).statusCode).toBe(200);
  });
});
