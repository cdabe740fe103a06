// Mail against Debian's OpenSMTPD on loopback (e2e/lab/smtpd.ts): plain SMTP, implicit TLS
// and STARTTLS; a server that refuses the password and one that never answers are small
// scripted SMTP peers on real sockets.
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  refusingPeer,
  smtpPeer,
  SMTPD_WAIT_MS,
  startSmtpd,
  type Smtpd,
} from '../../e2e/lab/smtpd.js';
import { signInBench, BENCH_ADMIN_TOKEN, type SignInBench } from '../testing/access/signin.js';
import { sendMail, type MailSettings } from './index.js';

const SMTP_PASSWORD = 'smtp-Pa55word-planted-7731';
const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` };

let smtpd: Smtpd;
// One OpenSMTPD per machine: another test file may hold it, so wait up to its lock's limit.
beforeAll(async () => {
  smtpd = await startSmtpd();
}, SMTPD_WAIT_MS);
afterAll(async () => {
  await smtpd?.stop();
});

function smtp(port: number, security: 'starttls' | 'ssl' | 'none', extra = {}): MailSettings {
  return {
    transport: 'smtp',
    timeout_s: 5,
    smtp: { host: '127.0.0.1', port, security, from: 'svc@lab.test', ...extra },
  };
}

describe('sending mail through a real SMTP server', () => {
  it.each([
    ['none', () => smtp(smtpd.port, 'none')],
    ['ssl', () => smtp(smtpd.sslPort, 'ssl', { ca_file: smtpd.caFile })],
    ['starttls', () => smtp(smtpd.starttlsPort, 'starttls', { ca_file: smtpd.caFile })],
  ] as const)('delivers with security %s', async (security, settings) => {
    const subject = `hello over ${security} ${String(Date.now())}`;
    const result = await sendMail(settings(), {}, { to: 'ann@lab.test', subject, text: 'body' });
    expect(result).toMatchObject({ ok: true });
    expect(result.detail).toMatch(/^250/);
    const raw = await smtpd.waitFor((m) => m.includes(subject));
    expect(raw).toMatch(/^To: ann@lab\.test/m);
  });

  it('refuses to send in clear text when starttls is asked and the server does not offer it', async () => {
    const result = await sendMail(
      smtp(smtpd.port, 'starttls'),
      {},
      {
        to: 'ann@lab.test',
        subject: 'never',
        text: 'never',
      },
    );
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/STARTTLS/i);
  });

  it('refuses a certificate it was not told to trust', async () => {
    const result = await sendMail(
      smtp(smtpd.sslPort, 'ssl'),
      {},
      {
        to: 'ann@lab.test',
        subject: 'never',
        text: 'never',
      },
    );
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/certificate/i);
  });

  it('explains a refused password without showing it, in any encoding', async () => {
    const p = await refusingPeer();
    const settings = smtp(p.port, 'none', { username: 'svc', password: { env: 'SMTP_PW' } });
    const result = await sendMail(
      settings,
      { SMTP_PW: SMTP_PASSWORD },
      {
        to: 'ann@lab.test',
        subject: 's',
        text: 't',
      },
    );
    await p.close();
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/refused the user name or password/);
    expect(p.seen.join('\n')).toContain(Buffer.from(`\0svc\0${SMTP_PASSWORD}`).toString('base64'));
    // The peer echoed the AUTH PLAIN blob back in its refusal: it is not passed on.
    const blob = Buffer.from(`\0svc\0${SMTP_PASSWORD}`).toString('base64');
    for (const form of [SMTP_PASSWORD, Buffer.from(SMTP_PASSWORD).toString('base64'), blob])
      expect(result.detail).not.toContain(form);
    expect(result.detail).toContain('535');
  });

  it('gives up on a server that never answers, within the timeout', async () => {
    const p = await smtpPeer(() => undefined, false);
    const settings = { ...smtp(p.port, 'none'), timeout_s: 1 };
    const result = await sendMail(settings, {}, { to: 'ann@lab.test', subject: 's', text: 't' });
    await p.close();
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/did not answer within 1 s/);
    expect(result.duration_ms).toBeGreaterThanOrEqual(900);
    expect(result.duration_ms).toBeLessThan(3000);
  });
});

describe('mail settings over HTTP', () => {
  let bench: SignInBench;
  beforeAll(async () => {
    bench = await signInBench({ delayMs: 50 });
  });
  afterAll(async () => {
    await bench.close();
  });

  it('stores a typed-in password in a 0600 file and shows only its reference', async () => {
    const put = await bench.call({
      method: 'PUT',
      url: '/v1/settings/mail',
      headers: admin,
      payload: {
        transport: 'smtp',
        smtp: {
          host: '127.0.0.1',
          port: smtpd.sslPort,
          security: 'ssl',
          username: 'svc',
          password: { value: SMTP_PASSWORD },
          from: 'Incidents <svc@lab.test>',
          ca_file: smtpd.caFile,
        },
      },
    });
    expect(put.statusCode).toBe(200);
    const file = put.json<{ settings: { smtp: { password: { file: string } } } }>().settings.smtp
      .password.file;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const get = await bench.call({ method: 'GET', url: '/v1/settings/mail', headers: admin });
    expect(get.json()).toMatchObject({ configured: true, settings: { transport: 'smtp' } });
    const set = bench.events().find((e) => e.type === 'config.mail_set');
    expect(set?.data).toMatchObject({ smtp: { password: { file } } });
    expect(JSON.stringify(bench.events()) + bench.logs() + bench.answers()).not.toContain(
      SMTP_PASSWORD,
    );
  });

  it('answers 400 naming the field', async () => {
    const res = await bench.call({
      method: 'PUT',
      url: '/v1/settings/mail',
      headers: admin,
      payload: {
        transport: 'smtp',
        smtp: { host: 'x', port: 70000, security: 'none', from: 'a@b' },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_input', field: 'smtp.port' });
    const api = await bench.call({
      method: 'PUT',
      url: '/v1/settings/mail',
      headers: admin,
      payload: { transport: 'api', api: { url: 'https://mail.test/send', from: 'a@b.test' } },
    });
    expect(api.json()).toMatchObject({ field: 'api.token' });
  });

  it('refuses people below admin', async () => {
    const res = await bench.call({ method: 'GET', url: '/v1/settings/mail' });
    expect(res.statusCode).toBe(401);
  });

  it('sends a test mail and records it', async () => {
    await bench.call({
      method: 'PUT',
      url: '/v1/settings/mail',
      headers: admin,
      payload: {
        transport: 'smtp',
        smtp: { host: '127.0.0.1', port: smtpd.port, security: 'none', from: 'svc@lab.test' },
      },
    });
    const res = await bench.call({
      method: 'POST',
      url: '/v1/settings/mail/test',
      headers: admin,
      payload: { to: 'tester@lab.test' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true });
    await smtpd.waitFor((m) => m.includes('tester@lab.test') && m.includes('Test mail'));
    expect(bench.events().some((e) => e.type === 'config.mail_tested')).toBe(true);
  });

  it('sends through a JSON mail API with the token as a bearer', async () => {
    const seen: { auth?: string; body?: unknown }[] = [];
    const { createServer: http } = await import('node:http');
    const api = http((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({
          ...(req.headers.authorization && { auth: req.headers.authorization }),
          body: JSON.parse(body),
        });
        res.writeHead(202).end('{}');
      });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    const address = api.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const result = await sendMail(
      {
        transport: 'api',
        timeout_s: 5,
        api: {
          url: `http://127.0.0.1:${String(port)}/send`,
          token: { env: 'T' },
          from: 'svc@lab.test',
        },
      },
      { T: 'api-token-planted' },
      { to: 'ann@lab.test', subject: 's', text: 't' },
    );
    api.close();
    expect(result).toMatchObject({ ok: true });
    expect(seen[0]).toEqual({
      auth: 'Bearer api-token-planted',
      body: { from: 'svc@lab.test', to: 'ann@lab.test', subject: 's', text: 't' },
    });
  });
});
