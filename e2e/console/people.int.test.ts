// People and sign-in from the console in a real Chromium against the bundled service, with
// Debian's OpenSMTPD (e2e/lab/smtpd.ts) receiving the mail and the lab identity provider
// (e2e/lab/oidc-provider.ts) for single sign-on: the sign-in page offers only the methods
// the service does; the admin sets up mail (a typed password shown masked afterwards, a test
// mail received), who may sign in, people (a role change, the last owner refused) and single
// sign-on (Discover, Test); a person signs in by an e-mailed code, sets a password on /me and
// signs in with it; a 429 shows its retry time; single sign-on goes all the way round.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcProvider } from '../lab/oidc-provider.js';
import { type Proc } from '../lab/processes.js';
import { SMTPD_WAIT_MS, startSmtpd, type Smtpd } from '../lab/smtpd.js';
import {
  shoot,
  signInWithAdminToken,
  startConsole,
  widthAtPhone,
  type ConsoleBench,
} from './browser.js';

const SMTP_PASSWORD = 'smtp-typed-secret-4417';
const BOB_PASSWORD = 'bob-correct-horse-battery-9';
const CLIENT_ID = 'svc-console';
const CLIENT_SECRET = 'oidc-Client-Secret-Value-e2e';

let svc: Proc & { adminToken: string };
let smtpd: Smtpd;
let provider: OidcProvider;
let browser: Browser;
let bench: ConsoleBench | undefined;
let admin: Page;
let personCtx: BrowserContext;
let person: Page;

async function apiGet<T>(path: string): Promise<T> {
  const res = await fetch(`${svc.url}${path}`, {
    headers: { authorization: `Bearer ${svc.adminToken}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** The code in the newest mail to `to` that arrived after `before` mails. */
async function codeFor(to: string, before: number): Promise<string> {
  const raw = await smtpd.waitFor(
    (m) => smtpd.messages().indexOf(m) >= before && new RegExp(`^To: ${to}`, 'm').test(m),
  );
  const code = /sign-in code is (\d{8})/.exec(raw)?.[1];
  if (code === undefined) throw new Error(`no code in ${raw}`);
  return code;
}

beforeAll(async () => {
  smtpd = await startSmtpd();
  bench = await startConsole({});
  ({ svc, browser } = bench);
  provider = await startOidcProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: `${svc.url}/v1/auth/sso/callback`,
    accounts: [{ id: 'carol', email: 'carol@sso.test', name: 'Carol SSO', groups: ['oncall'] }],
  });
  admin = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  personCtx = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  person = await personCtx.newPage();
  // One OpenSMTPD per machine: another test file may hold it for a while.
}, SMTPD_WAIT_MS + 120_000);

afterAll(async () => {
  await provider?.stop();
  await bench?.stop();
  await smtpd?.stop();
});

describe('sign-in page', () => {
  it('offers only the password and the admin token before mail or SSO are set up', async () => {
    await person.goto(`${svc.url}/`);
    await person.getByRole('form', { name: 'Sign in with a password' }).waitFor();
    await person.getByLabel('Admin token').waitFor();
    expect(await person.getByRole('tab').count()).toBe(0);
    expect(await person.getByRole('form', { name: /e-mailed code/ }).count()).toBe(0);
    expect(await person.getByRole('form', { name: /directory/ }).count()).toBe(0);
    expect(await person.getByRole('link', { name: /single sign-on/ }).count()).toBe(0);
    await shoot(person, '40-sign-in-password-only');
  });

  it('signs the admin in with the admin token', async () => {
    await signInWithAdminToken(admin, `${svc.url}/settings`, svc.adminToken);
    await admin.getByRole('form', { name: 'Mail settings' }).waitFor();
    expect(admin.url()).toMatch(/\/settings$/);
  });
});

describe('mail settings', () => {
  it('stores a typed SMTP password as a file and shows it masked', async () => {
    const form = admin.getByRole('form', { name: 'Mail settings' });
    await form.getByLabel('SMTP host').fill('127.0.0.1');
    await form.getByLabel('Port').fill(String(smtpd.starttlsPort));
    await form.getByLabel('Security').selectOption('starttls');
    await form.getByLabel('User name (optional)').fill('svc');
    await form.getByRole('radio', { name: 'Type a new one' }).check();
    await form.getByLabel(/^SMTP password \(typed/).fill(SMTP_PASSWORD);
    await form.getByLabel('From address').fill('Incidents <svc@lab.test>');
    await form.getByLabel('CA file for the server (optional, absolute path)').fill(smtpd.caFile);
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const keep = form.getByRole('radio', { name: /Keep the stored one \(•+ in the file/ });
    await keep.waitFor();
    expect(await keep.isChecked()).toBe(true);
    const view = await apiGet<{ settings: { smtp: { password: unknown } } }>('/v1/settings/mail');
    expect(view.settings.smtp.password).toMatchObject({ file: expect.any(String) as string });
    expect(JSON.stringify(view)).not.toContain(SMTP_PASSWORD);
    expect(await admin.content()).not.toContain(SMTP_PASSWORD);
    await form.scrollIntoViewIfNeeded();
    await shoot(admin, '41-settings-mail-masked');
  });

  it('saves plain SMTP to the lab smtpd and sends a test mail that arrives', async () => {
    const form = admin.getByRole('form', { name: 'Mail settings' });
    await form.getByRole('radio', { name: 'No password' }).check();
    await form.getByLabel('User name (optional)').fill('');
    await form.getByLabel('CA file for the server (optional, absolute path)').fill('');
    await form.getByLabel('Port').fill(String(smtpd.port));
    await form.getByLabel('Security').selectOption('none');
    await form.getByRole('button', { name: 'Save mail settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

    const before = smtpd.messages().length;
    const test = admin.getByRole('form', { name: 'Send a test mail' });
    await test.getByLabel('Send a test mail to').fill('admin@lab.test');
    await test.getByRole('button', { name: 'Send test mail' }).click();
    const answer = test.getByRole('status');
    await answer.filter({ hasText: '✓ Sent' }).waitFor();
    expect(await answer.textContent()).toMatch(/\(\d+ ms\)$/);
    await smtpd.waitFor(
      (m) => smtpd.messages().indexOf(m) >= before && /^To: admin@lab\.test/m.test(m),
    );
    await test.scrollIntoViewIfNeeded();
    await shoot(admin, '42-settings-mail-test');
  });
});

describe('access settings', () => {
  it('saves the domains and the default role', async () => {
    const form = admin.getByRole('form', { name: 'Who may sign in' });
    await form.getByLabel('E-mail domains (one a line)').fill('lab.test\n@Open.Test');
    await form.getByRole('radio', { name: 'responder' }).check();
    await form.getByRole('button', { name: 'Save access settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    // The service lower-cases and drops the @; the form shows what was stored.
    expect(await form.getByLabel('E-mail domains (one a line)').inputValue()).toBe(
      'lab.test\nopen.test',
    );
    const access = await apiGet<{ domains: string[]; default_role: string }>('/v1/settings/access');
    expect(access).toMatchObject({ domains: ['lab.test', 'open.test'], default_role: 'responder' });
    await form.scrollIntoViewIfNeeded();
    await shoot(admin, '43-settings-access');
  });
});

describe('people page', () => {
  it('adds people and changes a role', async () => {
    await admin
      .getByRole('navigation', { name: 'pages' })
      .getByRole('link', { name: 'People' })
      .click();
    const add = admin.getByRole('form', { name: 'Add a person' });
    await add.waitFor();
    await add.getByLabel('E-mail address').fill('ann@lab.test');
    await add.getByLabel('Name').fill('Ann Owner');
    await add.getByLabel('Role').selectOption('owner');
    await add.getByRole('button', { name: 'Add' }).click();
    await add.getByRole('status').filter({ hasText: 'Added ann@lab.test as owner' }).waitFor();

    await add.getByLabel('E-mail address').fill('bob@lab.test');
    await add.getByLabel('Name').fill('Bob');
    await add.getByLabel('Role').selectOption('viewer');
    await add.getByRole('button', { name: 'Add' }).click();
    await add.getByRole('status').filter({ hasText: 'Added bob@lab.test as viewer' }).waitFor();

    const bobRow = admin.getByRole('row').filter({ hasText: 'bob@lab.test' });
    await bobRow.getByRole('button', { name: 'Change bob@lab.test' }).click();
    const edit = admin.getByRole('form', { name: 'Change bob@lab.test' });
    await edit.getByLabel('Role').selectOption('responder');
    await edit.getByLabel('Slack').fill('U024BOB');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    await bobRow.getByRole('cell', { name: 'responder', exact: true }).waitFor();
    const users = await apiGet<{ users: { email: string; role: string; handles: object }[] }>(
      '/v1/users',
    );
    expect(users.users.find((u) => u.email === 'bob@lab.test')).toMatchObject({
      role: 'responder',
      handles: { slack: 'U024BOB' },
    });
  });

  it('refuses to demote the last owner and says why', async () => {
    const annRow = admin.getByRole('row').filter({ hasText: 'ann@lab.test' });
    await annRow.getByRole('button', { name: 'Change ann@lab.test' }).click();
    const edit = admin.getByRole('form', { name: 'Change ann@lab.test' });
    await edit.getByLabel('Role').selectOption('admin');
    await edit.getByRole('button', { name: 'Save' }).click();
    const alert = edit.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/last owner.*make someone else owner first/i);
    // What was chosen stays in the form after the refusal.
    expect(await edit.getByLabel('Role').inputValue()).toBe('admin');
    await shoot(admin, '44-people-last-owner');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    const users = await apiGet<{ users: { email: string; role: string }[] }>('/v1/users');
    expect(users.users.find((u) => u.email === 'ann@lab.test')?.role).toBe('owner');
  });

  it('adds a team with a lead', async () => {
    await admin.getByRole('button', { name: 'Add a team' }).click();
    const form = admin.getByRole('form', { name: 'New team' });
    await form.getByLabel('Team name').fill('SRE');
    await form.getByRole('group', { name: 'Members' }).getByLabel('Bob').check();
    await form
      .getByRole('group', { name: /^Leads/ })
      .getByLabel('Ann Owner')
      .check();
    await form.getByRole('button', { name: 'Create team' }).click();
    const row = admin.getByRole('table').last().getByRole('row').filter({ hasText: 'SRE' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Ann Owner');
    await admin.getByRole('row').filter({ hasText: 'bob@lab.test' }).getByText('SRE').waitFor();
    await shoot(admin, '45-people');
    // The people and team tables scroll inside their box on a phone, never the page.
    expect(await widthAtPhone(admin)).toBeLessThanOrEqual(390);
  });
});

describe('a person signs in', () => {
  it('sees the e-mailed code offered once mail is set up, and signs in with a code', async () => {
    await person.reload();
    const tabs = person.getByRole('tab');
    await tabs.first().waitFor();
    expect(await tabs.allTextContents()).toEqual(['E-mailed code', 'Password']);
    const form = person.getByRole('form', { name: 'Sign in with an e-mailed code' });
    const before = smtpd.messages().length;
    await form.getByLabel('E-mail address').fill('bob@lab.test');
    await form.getByRole('button', { name: 'E-mail me a code' }).click();
    const code = await codeFor('bob@lab.test', before);
    await form.getByLabel('Code from the e-mail').fill(code);
    await shoot(person, '46-sign-in-code');
    await form.getByRole('button', { name: 'Continue with the code' }).click();
    await person.locator('header.topbar').getByText('Bob (responder)').waitFor();
  });

  it('sets a password on /me', async () => {
    await person.locator('header.topbar').getByRole('link', { name: 'Bob (responder)' }).click();
    const form = person.getByRole('form', { name: 'Your password' });
    await form.getByLabel('New password', { exact: true }).fill('short');
    await form.getByLabel('New password again').fill('short');
    await form.getByRole('button', { name: 'Set password' }).click();
    await form.getByRole('alert').filter({ hasText: 'At least 12 characters' }).waitFor();
    await form.getByLabel('New password', { exact: true }).fill(BOB_PASSWORD);
    await form.getByLabel('New password again').fill(BOB_PASSWORD);
    await form.getByRole('button', { name: 'Set password' }).click();
    await form.getByRole('status').filter({ hasText: 'Password set' }).waitFor();
    await shoot(person, '47-me');
  });

  it('signs in with the password after a wrong one, and shows a 429 with its retry time', async () => {
    await person.getByRole('button', { name: 'Sign out' }).click();
    // The methods are a tab list: the arrow keys move between them.
    await person.getByRole('tab', { name: 'E-mailed code' }).focus();
    await person.keyboard.press('ArrowRight');
    expect(await person.getByRole('tab', { name: 'Password' }).getAttribute('aria-selected')).toBe(
      'true',
    );
    const form = person.getByRole('form', { name: 'Sign in with a password' });
    await form.getByLabel('E-mail address').fill('bob@lab.test');
    await form.getByLabel('Password').fill('not the password at all');
    await form.getByRole('button', { name: 'Continue with password' }).click();
    await form.getByRole('alert').filter({ hasText: 'do not match (password)' }).waitFor();
    expect(await form.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');

    // The throttle's answer, as the service gives it (faked here: 10 wrong tries take long).
    await person.route('**/v1/auth/password', (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/json',
        headers: { 'retry-after': '125' },
        body: JSON.stringify({
          error: 'too_many_attempts',
          message: 'too many failed sign-ins',
          retry_after_s: 125,
        }),
      }),
    );
    await form.getByRole('button', { name: 'Continue with password' }).click();
    await form.getByRole('alert').filter({ hasText: 'try again in 2 min 5 s' }).waitFor();
    await shoot(person, '48-sign-in-429');
    await person.unroute('**/v1/auth/password');

    await form.getByLabel('Password').fill(BOB_PASSWORD);
    await form.getByRole('button', { name: 'Continue with password' }).click();
    await person.locator('header.topbar').getByText('Bob (responder)').waitFor();
  });

  it('shows a responder the teams but not the people, and admin-only settings disabled', async () => {
    await person
      .getByRole('navigation', { name: 'pages' })
      .getByRole('link', { name: 'People' })
      .click();
    await person.getByText('Only an admin can list and change people; you are responder').waitFor();
    await person.getByRole('row').filter({ hasText: 'SRE' }).waitFor();
    const change = person.getByRole('button', { name: 'Change team SRE' });
    expect(await change.isDisabled()).toBe(true);
    expect(await change.getAttribute('title')).toContain('admin or a lead');
    await person
      .getByRole('navigation', { name: 'pages' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await person.getByText(/Only an admin can see and change who may sign in/).waitFor();
  });
});

describe('single sign-on', () => {
  it('discovers and tests the provider, saves, and is offered on the sign-in page', async () => {
    await admin
      .getByRole('navigation', { name: 'pages' })
      .getByRole('link', { name: 'Settings' })
      .click();
    const form = admin.getByRole('form', { name: 'Single sign-on settings' });
    await form.waitFor();
    expect(await form.getByLabel('Redirect URI').inputValue()).toBe(
      `${svc.url}/v1/auth/sso/callback`,
    );
    await form.getByLabel('Issuer URL').fill(provider.issuer);
    await form.getByLabel('Client id').fill(CLIENT_ID);
    await form.getByLabel(/^Client secret \(typed/).fill(CLIENT_SECRET);
    // The lab provider gives the groups claim only for the groups scope.
    await form.getByLabel('Scopes (space-separated)').fill('openid email profile groups');
    await form.getByRole('button', { name: 'Discover' }).click();
    const discovered = form.getByRole('status', { name: 'Discover answer' });
    await discovered.getByText('✓ Read the provider').waitFor();
    expect(await discovered.textContent()).toContain('✓ yes');
    await form.getByRole('button', { name: 'Test' }).click();
    const tested = form.getByRole('status', { name: 'Test answer' });
    await tested.getByText(/✓ Passed/).waitFor();

    await form.getByLabel('Offer single sign-on on the sign-in page').check();
    await form.getByRole('button', { name: 'Save single sign-on' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await form.getByRole('radio', { name: /Keep the stored one/ }).waitFor();
    await form.scrollIntoViewIfNeeded();
    await shoot(admin, '49-settings-sso');
    const sso = await apiGet<{ client_secret: unknown; enabled: boolean }>('/v1/settings/sso');
    expect(sso.enabled).toBe(true);
    expect(JSON.stringify(sso)).not.toContain(CLIENT_SECRET);
  });

  it('signs in through the provider and takes the one-time code out of the URL', async () => {
    // Carol's group is let in through the access settings.
    const res = await fetch(`${svc.url}/v1/settings/access`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${svc.adminToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ domains: ['lab.test'], sso_groups: ['oncall'] }),
    });
    expect(res.status).toBe(200);
    await person.getByRole('button', { name: 'Sign out' }).click();
    const link = person.getByRole('link', { name: 'Sign in with single sign-on' });
    await link.waitFor();
    await shoot(person, '50-sign-in-all-methods');
    await link.click();
    // The provider's development login and consent forms.
    await person.locator('input[name="login"]').fill('carol');
    await person.locator('input[name="password"]').fill('any');
    await person.locator('button[type="submit"]').click();
    await person.locator('button[type="submit"]').click();
    try {
      await person
        .locator('header.topbar')
        .getByText('Carol SSO (viewer)')
        .waitFor({ timeout: 10_000 });
    } catch (err) {
      await shoot(person, 'debug-sso');
      throw new Error(`${person.url()}: ${(await person.textContent('body')) ?? ''}`, {
        cause: err,
      });
    }
    expect(person.url()).not.toContain('sso=');
  });

  it('shows an sso_error from the callback', async () => {
    await person.goto(`${svc.url}/sign-in`);
    await person.evaluate('localStorage.clear()');
    await person.goto(
      `${svc.url}/sign-in?sso_error=sign_in_not_allowed&message=${encodeURIComponent('dave@sso.test may not sign in')}`,
    );
    await person.getByRole('alert').filter({ hasText: 'dave@sso.test may not sign in' }).waitFor();
    expect(person.url()).toBe(`${svc.url}/sign-in`);
  });
});
