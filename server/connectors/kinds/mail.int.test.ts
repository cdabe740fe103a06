// The mail kind against a real SMTP server: Debian's OpenSMTPD from the lab (e2e/lab/smtpd.ts),
// plain, behind implicit TLS and behind STARTTLS, with the lab certificate as ca_file. The
// approval mail arrives with both links; health is connect + EHLO (+ STARTTLS/TLS); a
// password never appears in an error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPD_WAIT_MS, startSmtpd, type Smtpd } from '../../../e2e/lab/smtpd.js';
import { Secret } from '../../shared/secret.js';
import { mailKind } from './mail.js';

const PASSWORD = 'smtp-pa55word-never-shown-4e1d';
const APPROVAL = {
  request_id: 'ap-mail-1',
  title: 'Restart payments-api on web-3',
  summary: 'Memory grows 40 MB/min since the 10:02 deploy.\nA restart buys hours.',
  risk: 'low',
  service: 'payments',
  approve_url: 'https://svc.example.com/v1/approvals/links/AAAA.bbbb',
  deny_url: 'https://svc.example.com/v1/approvals/links/CCCC.dddd',
  expires_at: '2026-11-22T11:00:00Z',
};

let smtpd: Smtpd;
// One OpenSMTPD per machine: another test file may hold it, so wait up to its lock's limit.
beforeAll(async () => {
  smtpd = await startSmtpd();
}, SMTPD_WAIT_MS);
afterAll(async () => {
  await smtpd?.stop();
});

const mail = (settings: Record<string, unknown>) =>
  mailKind.create({
    host: '127.0.0.1',
    from: 'Incident response <svc@lab.test>',
    to: ['oncall@lab.test', 'lead@lab.test'],
    ...settings,
  });
const signal = () => AbortSignal.timeout(20_000);
const errorOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('did not fail');
};
/** The decoded body of a raw message (quoted-printable soft breaks and =XX undone). */
const decoded = (raw: string): string =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('the mail kind against OpenSMTPD', () => {
  it('checks health with EHLO on plain SMTP and delivers the approval mail with both links', async () => {
    const c = mail({ port: smtpd.port, security: 'none' });
    expect(await c.health(signal())).toMatchObject({
      ok: true,
      detail: `SMTP 127.0.0.1:${String(smtpd.port)} answered EHLO (no TLS, no AUTH)`,
    });
    const r = (await c.call('send_approval', APPROVAL, signal())) as { detail: string };
    expect(r).toMatchObject({ delivered: true });
    expect(r.detail).toMatch(
      new RegExp(
        `^SMTP 127\\.0\\.0\\.1:${String(smtpd.port)} accepted it for 2 of 2 recipients \\(250 `,
      ),
    );
    const raw = await smtpd.waitFor((m) => m.includes('X-Svc-Request: ap-mail-1'));
    expect(raw).toMatch(/^Subject: Approval requested: Restart payments-api on web-3\r?$/m);
    expect(raw).toMatch(/^Auto-Submitted: auto-generated\r?$/m);
    expect(raw).toMatch(/^From: Incident response <svc@lab\.test>\r?$/m);
    expect(raw).toContain('multipart/alternative');
    const body = decoded(raw);
    expect(body).toContain(`Approve: ${APPROVAL.approve_url}`);
    expect(body).toContain(`Deny: ${APPROVAL.deny_url}`);
    expect(body).toContain(`href="${APPROVAL.approve_url}"`);
    expect(body).toContain(`href="${APPROVAL.deny_url}"`);
    expect(body).toContain('Each link works once; both expire at 2026-11-22T11:00:00.000Z.');
  });

  it('sends a plain notification', async () => {
    const c = mail({ port: smtpd.port, security: 'none', to: ['ops@lab.test'] });
    await c.call('send', { title: 'Actions halted', text: 'Halt by alice at 10:12.' }, signal());
    const raw = await smtpd.waitFor((m) => m.includes('Subject: Actions halted'));
    expect(decoded(raw)).toContain('Halt by alice at 10:12.');
  });

  it('speaks implicit TLS and STARTTLS with the lab CA as ca_file', async () => {
    const ssl = mail({ port: smtpd.sslPort, security: 'ssl', ca_file: smtpd.caFile });
    expect(await ssl.health(signal())).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/\(TLS, no AUTH\)$/) as unknown,
    });
    await ssl.call('send_approval', { ...APPROVAL, request_id: 'ap-mail-ssl' }, signal());
    await smtpd.waitFor((m) => m.includes('X-Svc-Request: ap-mail-ssl'));
    const starttls = mail({
      port: smtpd.starttlsPort,
      security: 'starttls',
      ca_file: smtpd.caFile,
    });
    expect(await starttls.health(signal())).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/\(STARTTLS, no AUTH\)$/) as unknown,
    });
    await starttls.call('send_approval', { ...APPROVAL, request_id: 'ap-mail-starttls' }, signal());
    await smtpd.waitFor((m) => m.includes('X-Svc-Request: ap-mail-starttls'));
  });

  it('fails clearly: an untrusted certificate, no STARTTLS offered, AUTH refused, nothing listening', async () => {
    const untrusted = await errorOf(
      mail({ port: smtpd.sslPort, security: 'ssl' }).health(signal()),
    );
    expect(untrusted).toMatch(
      new RegExp(`^health: SMTP 127\\.0\\.0\\.1:${String(smtpd.sslPort)}: .*certificate`, 'i'),
    );
    // OpenSMTPD's own port offers no STARTTLS: starttls is required, so nothing is sent in clear.
    const noTls = await errorOf(
      mail({ port: smtpd.port, security: 'starttls' }).call('send_approval', APPROVAL, signal()),
    );
    expect(noTls).toMatch(/^send_approval: SMTP 127\.0\.0\.1:\d+: .*STARTTLS/i);
    // A login is configured but the server offers no AUTH: refused, not silently skipped.
    const auth = await errorOf(
      mail({
        port: smtpd.port,
        security: 'none',
        username: 'svc',
        password: new Secret(PASSWORD),
      }).health(signal()),
    );
    expect(auth).toMatch(/^health: SMTP 127\.0\.0\.1:\d+: /);
    expect(auth).not.toContain(PASSWORD);
    const nobody = await errorOf(mail({ port: 1, security: 'none' }).health(signal()));
    expect(nobody).toMatch(/^health: SMTP 127\.0\.0\.1:1: .*ECONNREFUSED/);
  });

  it('checks its settings without echoing the password', () => {
    expect(() => mailKind.create({ from: 'a@b', to: ['c@d'] })).toThrow('setting host is required');
    expect(() => mail({ security: 'tls' })).toThrow(
      'setting security must be one of starttls, ssl, none',
    );
    expect(() => mail({ to: [] })).toThrow('setting to needs at least one address');
    expect(() => mail({ to: ['ok@lab.test', 'x\r\nBcc: evil@x'] })).toThrow(
      'setting to: line 2 is not a mail address',
    );
    expect(() => mail({ from: 'nobody' })).toThrow('setting from is not a mail address');
    expect(() => mail({ password: new Secret(PASSWORD) })).toThrow(
      'setting password needs username',
    );
    expect(() => mail({ ca_file: 'relative.pem' })).toThrow(
      'setting ca_file must be an absolute path',
    );
    expect(() => mail({ port: 70_000 })).toThrow(/setting port must be an integer/);
  });
});
