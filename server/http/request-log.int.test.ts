// The request log of the whole service never carries a credential that came in a URL:
// session tokens, approval-link tokens, single sign-on codes and states. Query strings are
// left out of every logged URL.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../compose/index.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { ADMIN_TOKEN, makeDataDir, testEnv } from '../testing/test-server.js';

const lines: string[] = [];
let built: BuiltApp;
let dir: string;
beforeAll(async () => {
  const made = makeDataDir();
  dir = made.dir;
  const env = testEnv(made.dir, made.machineIdFile, { SVC_LOG_LEVEL: 'info' });
  const config = loadConfig(env, { port: 0, bind: '127.0.0.1' });
  built = await buildApp(config, {
    log: createLogger('info', { write: (s: string) => void lines.push(s) }),
    wrongCredentialDelayMs: 10,
    env,
  });
});
afterAll(async () => {
  await built.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the request log', () => {
  it('logs the path of every request, never its query string', async () => {
    const login = await built.app.inject({
      method: 'POST',
      url: '/v1/login',
      payload: { token: ADMIN_TOKEN },
    });
    const { token } = login.json<{ token: string }>();
    const planted = {
      link: 'planted-link-token.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      code: 'planted-sso-code-0123456789',
      state: 'planted-sso-state-0123456789',
      redeem: 'planted-redeem-code-0123456789',
    };
    for (const url of [
      `/approvals/link?token=${planted.link}`,
      `/v1/approvals/link?token=${planted.link}`,
      `/v1/auth/sso/callback?code=${planted.code}&state=${planted.state}`,
      `/sign-in?sso=${planted.redeem}`,
      `/v1/ledger?limit=1&token=${token}`,
      `/v1/nowhere?token=${token}`,
    ])
      await built.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    const text = lines.join('');
    expect(text).toContain('"url":"/v1/approvals/link"');
    expect(text).toContain('"url":"/v1/auth/sso/callback"');
    for (const secret of [token, ADMIN_TOKEN, ...Object.values(planted)])
      expect(text, secret).not.toContain(secret);
  });
});
