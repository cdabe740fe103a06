// Mail set by the SVC_MAIL_* / SVC_SMTP_* variables: the real server (buildTestServer, real
// SQLite, the config module reading the variables) sends through Debian's OpenSMTPD on
// loopback (e2e/lab/smtpd.ts) and through a JSON mail API on a real socket; the settings
// endpoint shows the environment's settings and refuses a PUT with 409 naming the variables.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPD_WAIT_MS, startSmtpd, type Smtpd } from '../../e2e/lab/smtpd.js';
import { ConfigError, loadConfig } from '../config.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

const API_KEY = 'mail-api-key-planted-5521';

let smtpd: Smtpd;
let tmp: string;
// One OpenSMTPD per machine: another test file may hold it, so wait up to its lock's limit.
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'svc-mail-env-'));
  smtpd = await startSmtpd();
}, SMTPD_WAIT_MS);
afterAll(async () => {
  await smtpd?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const ledgerTypes = async (server: TestServer, prefix: string): Promise<string[]> => {
  const res = await server.app.inject({
    method: 'GET',
    url: `/v1/ledger?type=${prefix}&order=asc`,
    headers: asAdmin(),
  });
  return res.json<{ events: { type: string }[] }>().events.map((e) => e.type);
};

describe('SMTP from SVC_SMTP_* against OpenSMTPD', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({
      env: {
        SVC_SMTP_HOST: '127.0.0.1',
        SVC_SMTP_PORT: String(smtpd.port),
        SVC_SMTP_SECURITY: 'none',
        SVC_MAIL_FROM: 'Incidents <svc-env@lab.test>',
      },
    });
  });
  afterAll(async () => {
    await server?.cleanup();
  });

  it('GET shows the settings the variables make, from the environment', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/v1/settings/mail',
      headers: asAdmin(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      configured: true,
      settings: {
        transport: 'smtp',
        timeout_s: 15,
        smtp: {
          host: '127.0.0.1',
          port: smtpd.port,
          security: 'none',
          from: 'Incidents <svc-env@lab.test>',
        },
      },
      updated_at: null,
      environment: ['SVC_MAIL_FROM', 'SVC_SMTP_HOST', 'SVC_SMTP_PORT', 'SVC_SMTP_SECURITY'],
    });
  });

  it('sends the test mail through the real SMTP server with those settings', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/settings/mail/test',
      headers: asAdmin(),
      payload: { to: 'env-tester@lab.test' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true });
    const raw = await smtpd.waitFor((m) => m.includes('env-tester@lab.test'));
    expect(raw).toMatch(/^From: Incidents <svc-env@lab\.test>/m);
    expect(await ledgerTypes(server, 'config.mail_')).toEqual(['config.mail_tested']);
  });

  it('PUT answers 409 naming the variables and changes nothing', async () => {
    const res = await server.app.inject({
      method: 'PUT',
      url: '/v1/settings/mail',
      headers: asAdmin(),
      payload: {
        transport: 'smtp',
        smtp: { host: '127.0.0.9', port: 25, security: 'none', from: 'other@lab.test' },
      },
    });
    expect(res.statusCode).toBe(409);
    const body = res.json<{ error: string; message: string; variables: string[] }>();
    expect(body.error).toBe('mail_in_environment');
    expect(body.variables).toEqual([
      'SVC_MAIL_FROM',
      'SVC_SMTP_HOST',
      'SVC_SMTP_PORT',
      'SVC_SMTP_SECURITY',
    ]);
    expect(body.message).toContain('SVC_SMTP_HOST');
    const get = await server.app.inject({
      method: 'GET',
      url: '/v1/settings/mail',
      headers: asAdmin(),
    });
    expect(get.json()).toMatchObject({ settings: { smtp: { host: '127.0.0.1' } } });
    expect(await ledgerTypes(server, 'config.mail_set')).toEqual([]);
  });
});

describe('a JSON mail API from SVC_MAIL_PROVIDER=api', () => {
  it('sends with SVC_MAIL_API_URL and the key from SVC_MAIL_API_KEY_FILE, never showing it', async () => {
    const seen: { headers: IncomingHttpHeaders; body: unknown }[] = [];
    const api = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: JSON.parse(body) });
        res.writeHead(202).end('{}');
      });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    const address = api.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const keyFile = join(tmp, 'mail-api-key');
    writeFileSync(keyFile, `${API_KEY}\n`, { mode: 0o600 });
    const server = await buildTestServer({
      env: {
        SVC_MAIL_PROVIDER: 'api',
        SVC_MAIL_API_URL: `http://127.0.0.1:${String(port)}/send`,
        SVC_MAIL_API_KEY_FILE: keyFile,
        SVC_MAIL_FROM: 'svc-env@lab.test',
      },
    });
    try {
      const get = await server.app.inject({
        method: 'GET',
        url: '/v1/settings/mail',
        headers: asAdmin(),
      });
      expect(get.json()).toMatchObject({
        configured: true,
        settings: { transport: 'api', api: { token: { file: keyFile } } },
      });
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/settings/mail/test',
        headers: asAdmin(),
        payload: { to: 'ann@lab.test' },
      });
      expect(res.json()).toMatchObject({ ok: true });
      expect(seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(seen[0]?.body).toMatchObject({ from: 'svc-env@lab.test', to: 'ann@lab.test' });
      expect(get.body + res.body).not.toContain(API_KEY);
    } finally {
      await server.cleanup();
      api.close();
    }
  });
});

describe('incomplete mail variables stop the start, naming them', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems.map((p) => p.split(':')[0] ?? '');
      throw err;
    }
    return [];
  };

  it.each([
    [{ SVC_MAIL_PROVIDER: 'smtp' }, ['SVC_SMTP_HOST']],
    [{ SVC_MAIL_PROVIDER: 'api' }, ['SVC_MAIL_API_URL']],
    [{ SVC_MAIL_API_URL: 'https://mail.test/send' }, ['SVC_MAIL_API_KEY']],
    [{ SVC_SMTP_HOST: 'mail.test', SVC_SMTP_PASSWORD: 'pw' }, ['SVC_SMTP_USER']],
    [
      {
        SVC_SMTP_HOST: 'mail.test',
        SVC_SMTP_USER: 'u',
        SVC_SMTP_PASSWORD: 'pw',
        SVC_SMTP_SECURITY: 'none',
      },
      ['SVC_SMTP_SECURITY'],
    ],
    [{ SVC_SMTP_HOST: 'mail.test' }, []],
  ] as const)('%j: %j', (env, named) => {
    expect(problems(env)).toEqual(named);
  });
});
