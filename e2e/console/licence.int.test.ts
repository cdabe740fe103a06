// The Licence page in a real Chromium against the bundled service (issue 19): with no licence
// the set-up leads to it, and its installs section offers to ask to be added; a refused licence
// names its check and changes nothing; a file installs; a licence that gives something up lists
// the losses and installs only when acknowledged; the banner on every page while expiring or in
// grace; buttons follow the role; removing asks first and goes back to setup; a mounted
// SVC_LICENCE file disables install and remove with why. The exchange (licence.md §3.7) runs
// between two real services with no network between them but the test: N, a new install on a
// machine of its own, asks (the code shown large, the text copied); E, this file's service with
// a licence listing its real install key, looks at an edited text (refused) and the real one
// (digits and checks), refuses a wrong code and grants with the right one; the grant pasted on N
// covers it, and poll says so. A viewer sees every exchange button disabled with why; the usage
// statement downloads for an admin.
import { createPublicKey, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../server/install/index.js';
import { installPubOf, type LicencePayload } from '../../server/licence/index.js';
import {
  createTestIssuer,
  licencePayload,
  productionInstall,
} from '../../server/testing/licence/issuer.js';
import { startService, type Proc } from '../lab/processes.js';
import { shoot, signInWithAdminToken, startConsole, type ConsoleBench } from './browser.js';

/** The machine id startService writes (e2e/lab/processes.ts). */
const MACHINE_ID = '7a1c3e5f9b2d4c6e8f0a1b3c5d7e9f21';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const DAY = 86_400_000;
const issuer = createTestIssuer();
const LICENCE_ID = licencePayload(new Date().toISOString()).licence_id;

/** A licence for this install, issued now, then `over`. */
function here(over: Partial<LicencePayload> = {}): string {
  const now = new Date().toISOString();
  return JSON.stringify(
    issuer.licence(
      licencePayload(now, {
        licence_id: LICENCE_ID,
        installs: [
          {
            fingerprint: THIS,
            install_pub: randomBytes(32).toString('base64url'),
            label: 'prod',
            role: 'production',
            added_at: now,
            via: 'authority',
          },
        ],
        ...over,
      }),
    ),
  );
}

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
let page: Page;
let owner: Page;
/** Vic, a viewer (people can be added only while the service operates). */
let viewerToken = '';
const contexts: BrowserContext[] = [];

async function httpAt<T>(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as T };
}

/** A call to svc, the service the file starts. */
const http = <T>(token: string, method: string, path: string, body?: unknown) =>
  httpAt<T>(svc.url, token, method, path, body);

const status = async () =>
  (
    await http<{ mode: string; licence: Record<string, unknown> | null }>(
      svc.adminToken,
      'GET',
      '/v1/status',
    )
  ).body;

/** A person of `role` with a session (break-glass bootstrap makes them owner; then the role). */
async function person(email: string, name: string, role: string): Promise<string> {
  const made = await http<{ id: string }>(svc.adminToken, 'POST', '/v1/users', {
    email,
    name,
    role,
  });
  expect(made.status).toBe(201);
  const boot = await http<{ token: string }>(svc.adminToken, 'POST', '/v1/auth/bootstrap', {
    email,
    name,
  });
  expect(boot.status).toBe(200);
  if (role !== 'owner') {
    expect((await http(svc.adminToken, 'PUT', `/v1/users/${made.body.id}`, { role })).status).toBe(
      200,
    );
  }
  return boot.body.token;
}

async function pageWith(token: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  contexts.push(ctx);
  const p = await ctx.newPage();
  await p.goto(`${svc.url}/`);
  await p.evaluate(`localStorage.setItem('svc.session', ${JSON.stringify(token)})`);
  return p;
}

const navLicence = (p: Page) =>
  p.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Licence' });
const licenceText = (p: Page) => p.getByLabel('Licence text', { exact: true });
const facts = (p: Page) => p.getByRole('definition');

beforeAll(async () => {
  bench = await startConsole({ SVC_TRIAL: '0' });
  ({ svc, browser } = bench);
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await bench?.stop();
});

describe('the Licence page', () => {
  it('with no licence, the set-up leads to the Licence page, whose installs section offers to ask to be added', async () => {
    expect((await status()).mode).toBe('setup');
    await signInWithAdminToken(page, `${svc.url}/live`, svc.adminToken);
    // Setup mode: every page is the set-up; its banner leads to the Licence page.
    await page.getByRole('heading', { name: 'Set-up' }).waitFor();
    const banner = page.getByRole('status').filter({ hasText: 'Mode setup' });
    const asked = page.waitForResponse((r) => r.url().endsWith('/v1/licence/installs'));
    await banner.getByRole('link', { name: 'Install a licence' }).click();
    await page.getByRole('heading', { name: 'Licence', exact: true }).waitFor();
    expect(page.url()).toMatch(/\/licence$/);
    await page.getByText('✗ No licence').waitFor();
    await page.getByRole('form', { name: 'Install a licence' }).waitFor();
    // The exchange is open in setup: a new install is where asking is needed.
    expect((await asked).status()).toBe(200);
    await page.getByRole('heading', { name: /^Installs/ }).waitFor();
    await page.getByText('! no: ask to be added below').waitFor();
    expect(await page.getByRole('button', { name: 'Ask to be added' }).isDisabled()).toBe(false);
    // Holding no licence, it counts against no limit ("unlimited" would be wrong).
    expect(await page.getByRole('heading', { name: /^Installs/ }).textContent()).toBe(
      'Installs no licence here',
    );
    await page.getByText('This install holds no licence, so it lists no installs.').waitFor();
    // With no licence there is nothing to state: the usage section waits for one.
    expect(await page.getByRole('heading', { name: 'Usage statement' }).count()).toBe(0);
    expect(await page.content()).not.toMatch(/no install exchange|not available yet|coming soon/i);
    await shoot(page, '80-licence-none');
  });

  it('a refused licence names its check and leaves everything as it was', async () => {
    const foreign = JSON.stringify(issuer.licence(licencePayload(new Date().toISOString())));
    await licenceText(page).fill(foreign);
    await page.getByRole('button', { name: 'Install licence' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not installed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('not_for_this_install');
    expect(await alert.textContent()).toContain('Nothing was installed.');
    await shoot(page, '81-licence-refused');

    await licenceText(page).fill('{"format":"svc-licence/1"');
    await page.getByRole('button', { name: 'Install licence' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /check format failed/ })
      .waitFor();
    expect((await status()).mode).toBe('setup');
  });

  it('a licence file chosen installs: the page shows tier, customer, limits, expiry, grace and stage', async () => {
    await page.getByLabel('Or choose the licence file').setInputFiles({
      name: 'licence.json',
      mimeType: 'application/json',
      buffer: Buffer.from(here({ serial: 1 })),
    });
    await page.getByText('Read from licence.json.').waitFor();
    await page.getByRole('button', { name: 'Install licence' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Installed: enterprise for Test Customer Ltd.' })
      .waitFor();
    const summary = page.getByRole('definition');
    await summary.filter({ hasText: 'Test Customer Ltd' }).waitFor();
    const text = (await page.getByLabel('licence in force').textContent()) ?? '';
    expect(text).toContain('enterprise');
    expect(text).toContain('0 counted of 250'); // services_used: no signal yet
    expect(text).toContain('1 of 10');
    expect(text).toMatch(/in 36[45] days/);
    expect(text).toContain('✓ valid');
    expect(text).toContain('signed by the licence authority');
    expect(text).toContain(THIS);
    expect(text).toMatch(/auto: confirmed with the licence authority/);
    expect((await status()).mode).not.toBe('setup');
    // The set-up banner is gone and the other pages answer.
    expect(await page.getByText('Mode setup').count()).toBe(0);
    await shoot(page, '82-licence-installed');
  });

  it('a licence that gives something up lists the losses; it installs only when acknowledged', async () => {
    await licenceText(page).fill(
      here({
        serial: 2,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
      }),
    );
    await page.getByRole('button', { name: 'Install licence' }).click();
    const losing = page.getByRole('alert', { name: 'would lose' });
    await losing.waitFor();
    const items = await losing.getByRole('listitem').allTextContents();
    expect(items).toEqual(['services limit 250 → 50', 'the keychain']);
    await shoot(page, '83-licence-would-lose');
    // Keeping the licence in force changes nothing.
    await losing.getByRole('button', { name: 'Keep the licence in force' }).click();
    expect((await status()).licence).toMatchObject({ services: 250 });
    await page.getByRole('button', { name: 'Install licence' }).click();
    await losing.getByRole('button', { name: 'Install anyway' }).click();
    await page.getByRole('status').filter({ hasText: 'Installed: enterprise' }).waitFor();
    expect((await status()).licence).toMatchObject({ services: 50 });
    await facts(page)
      .filter({ hasText: /^0 counted of 50$/ })
      .waitFor();
  });

  it('in grace, a banner on every page says when grace ends and links to the Licence page', async () => {
    const now = Date.now();
    const r = await http(svc.adminToken, 'POST', '/v1/licence', {
      licence: here({
        serial: 3,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
        not_before: new Date(now - 40 * DAY).toISOString(),
        expires_at: new Date(now - 2 * DAY).toISOString(),
        grace_days: 30,
      }),
      acknowledge: true,
    });
    expect(r.status).toBe(200);
    expect((await status()).licence).toMatchObject({ stage: 'in_grace', in_grace: true });
    await page.goto(`${svc.url}/episodes`);
    const banner = page.getByRole('status', { name: 'licence' });
    await banner.waitFor();
    const words = (await banner.textContent()) ?? '';
    expect(words).toContain('The licence has expired');
    expect(words).toContain('grace period ends at');
    await shoot(page, '84-licence-banner-grace');
    await banner.getByRole('link', { name: 'Renew or install a licence' }).click();
    await page.getByRole('heading', { name: 'Licence', exact: true }).waitFor();
    expect(page.url()).toMatch(/\/licence$/);
    expect((await page.getByLabel('licence in force').textContent()) ?? '').toContain('in grace');
    // The banner stays on the Licence page too, without the link to itself.
    await banner.waitFor();
    expect(await banner.getByRole('link').count()).toBe(0);
  });

  it('expiring, the banner counts the days left', async () => {
    const r = await http(svc.adminToken, 'POST', '/v1/licence', {
      licence: here({
        serial: 4,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
        expires_at: new Date(Date.now() + 9 * DAY - 3_600_000).toISOString(),
      }),
      acknowledge: true,
    });
    expect(r.status).toBe(200);
    await page.goto(`${svc.url}/status`);
    const banner = page.getByRole('status', { name: 'licence' });
    await banner.filter({ hasText: 'The licence expires in 9 days' }).waitFor();
    await shoot(page, '85-licence-banner-expiring');
    // Renewed: the banner goes.
    const renewed = await http(svc.adminToken, 'POST', '/v1/licence', {
      licence: here({
        serial: 5,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
      }),
    });
    expect(renewed.status).toBe(200);
    await page.goto(`${svc.url}/status`);
    await page.getByRole('heading', { name: 'Status' }).waitFor();
    await page
      .getByRole('table', { name: /^doctor checks: / })
      .first()
      .waitFor();
    expect(await page.getByRole('status', { name: 'licence' }).count()).toBe(0);
  });

  it('buttons follow the role: viewers and admins see install and remove disabled with why', async () => {
    // An owner person first: the others are made owner by the bootstrap, then lowered.
    owner = await pageWith(await person('olive@lab.test', 'Olive Owner', 'owner'));
    viewerToken = await person('vic@lab.test', 'Vic Viewer', 'viewer');
    const viewer = await pageWith(viewerToken);
    const admin = await pageWith(await person('ann@lab.test', 'Ann Admin', 'admin'));
    for (const [p, name] of [
      [viewer, 'viewer'],
      [admin, 'admin'],
    ] as const) {
      await p.goto(`${svc.url}/status`);
      await navLicence(p).click();
      await p.getByLabel('licence in force').waitFor();
      expect(await p.getByRole('button', { name: 'Install licence' }).isDisabled(), name).toBe(
        true,
      );
      expect(await licenceText(p).isDisabled(), name).toBe(true);
      await p.getByText('Installing a licence needs the owner role.').waitFor();
      expect(await p.getByRole('button', { name: 'Remove licence…' }).isDisabled(), name).toBe(
        true,
      );
      await p.getByText('Removing the licence needs the owner role.').waitFor();
    }
    await shoot(viewer, '86-licence-viewer');
  });

  it('removing asks first, then goes back to setup mode', async () => {
    await owner.goto(`${svc.url}/licence`);
    await owner.getByRole('button', { name: 'Remove licence…' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Confirm removing the licence' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('delayed, not lost');
    await shoot(owner, '87-licence-remove-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await status()).mode).not.toBe('setup');
    await owner.getByRole('button', { name: 'Remove licence…' }).click();
    await dialog.getByRole('button', { name: 'Remove the licence' }).click();
    await owner.getByText('✗ No licence').waitFor();
    expect((await status()).mode).toBe('setup');
    expect((await status()).licence).toBeNull();
  });
});

describe('a mounted licence file', () => {
  it('shows the file; install and remove are disabled with why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'licence-mounted-'));
    const file = join(dir, 'licence.json');
    writeFileSync(file, here({ serial: 9 }));
    let mounted: (Proc & { adminToken: string }) | undefined;
    try {
      mounted = await startService({ SVC_TRIAL: '0', SVC_LICENCE: file });
      const p = await browser.newPage({ viewport: { width: 1366, height: 900 } });
      await signInWithAdminToken(p, `${mounted.url}/licence`, mounted.adminToken);
      const summary = p.getByLabel('licence in force');
      await summary.waitFor();
      expect(await summary.textContent()).toContain(`the file ${file} (SVC_LICENCE)`);
      expect(await p.getByRole('button', { name: 'Install licence' }).isDisabled()).toBe(true);
      await p.getByText(`The licence is managed as the file ${file} (SVC_LICENCE)`).waitFor();
      expect(await p.getByRole('button', { name: 'Remove licence…' }).isDisabled()).toBe(true);
      await p
        .getByText(`The licence is managed as the file ${file}: remove that file instead.`)
        .waitFor();
      await shoot(p, '88-licence-mounted');
      await p.close();
    } finally {
      await mounted?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** N: a new install on a machine of its own, with no licence (E, on the licence, is svc). */
const N_MACHINE = '3e9d1b7c5a2f4e6d8c0b9a7f5e3d1c2b';
const N_FP = fingerprintOf(N_MACHINE, 'machine-id');
/** The code as typed wrongly: one more, modulo a million, grouped 3+3. */
const wrongCode = (code: string) =>
  String((Number(code.replace(' ', '')) + 1) % 1_000_000)
    .padStart(6, '0')
    .replace(/^(\d{3})/, '$1 ');

describe('the installs section and the exchange between two real installs', () => {
  let n: (Proc & { adminToken: string }) | undefined;
  let nPage: Page;
  const asked = { req_id: '', code: '', text: '' };
  let grant = '';

  beforeAll(async () => {
    n = await startService(
      { SVC_TRIAL: '0' },
      {
        prepare: (dir) => {
          writeFileSync(join(dir, 'machine-id'), `${N_MACHINE}\n`);
          return Promise.resolve();
        },
      },
    );
    // E's licence lists E with its real install key: a grant E signs verifies on N only then.
    const pem = readFileSync(join(svc.dir, 'data', 'install-key.pem'));
    const now = new Date().toISOString();
    const installed = await http(svc.adminToken, 'POST', '/v1/licence', {
      licence: here({
        serial: 50,
        installs: [
          productionInstall(THIS, now, { install_pub: installPubOf(createPublicKey(pem)) }),
        ],
      }),
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await n?.stop();
  });

  it('on the new install N: ask shows the code large and the text to copy; poll says it is open', async () => {
    if (n === undefined) throw new Error('N did not start');
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    contexts.push(ctx);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: n.url });
    nPage = await ctx.newPage();
    await signInWithAdminToken(nPage, `${n.url}/licence`, n.adminToken);
    await nPage.getByRole('heading', { name: /^Installs/ }).waitFor();
    await nPage.getByText('! no: ask to be added below').waitFor();
    expect(await nPage.getByRole('heading', { name: /^Installs/ }).textContent()).toContain(
      'no licence here',
    );
    expect(await nPage.getByLabel('this install', { exact: true }).textContent()).toContain(N_FP);
    const ask = nPage.getByRole('form', { name: 'Ask to be added' });
    await ask.getByLabel('Purpose').selectOption('dr');
    await ask.getByLabel('Label (optional, e.g. dr-site-b)').fill('dr-site-b');
    const answered = nPage.waitForResponse((r) => r.url().endsWith('/v1/licence/installs/ask'));
    await ask.getByRole('button', { name: 'Ask to be added' }).click();
    const response = await answered;
    expect(response.request().postDataJSON()).toEqual({ purpose: 'dr', label: 'dr-site-b' });
    asked.req_id = ((await response.json()) as { req_id: string }).req_id;
    const code = nPage.getByLabel('request code');
    await code.filter({ hasText: /^\d{3} \d{3}$/ }).waitFor();
    asked.code = (await code.textContent()) ?? '';
    const carried = nPage.getByLabel('Request text to carry to an install on the licence');
    asked.text = await carried.inputValue();
    expect(asked.text).toMatch(/^-----BEGIN SVC INSTALL REQUEST-----\n/);
    for (const header of [
      'Label: dr-site-b',
      `Fingerprint: ${N_FP}`,
      'Purpose: dr',
      `Code: ${asked.code}`,
    ])
      expect(asked.text).toContain(`\n${header}\n`);
    await nPage.getByRole('button', { name: 'Copy text' }).click();
    await nPage.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await nPage.evaluate('navigator.clipboard.readText()')).toBe(asked.text);
    // The request is listed; look and vouch belong to an install on the licence.
    await nPage.getByRole('table', { name: 'requests' }).getByText(asked.req_id).waitFor();
    expect(await nPage.getByRole('button', { name: 'Look at the request' }).isDisabled()).toBe(
      true,
    );
    await nPage.getByRole('button', { name: 'Where does my request stand?' }).click();
    const state = nPage
      .getByRole('list', { name: 'request state' })
      .getByRole('listitem')
      .filter({ hasText: asked.req_id });
    await state.waitFor();
    expect(await state.locator('strong').textContent()).toBe('open');
    await shoot(nPage, '89-licence-ask');
  });

  it('on E, on the licence: an edited text cannot be vouched; look shows the digits and checks; a wrong code is refused, the right one grants', async () => {
    expect(asked.text).not.toBe('');
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    contexts.push(ctx);
    const e = await ctx.newPage();
    await signInWithAdminToken(e, `${svc.url}/licence`, svc.adminToken);
    const heading = e.getByRole('heading', { name: /^Installs/ });
    await heading.filter({ hasText: '1 of 10' }).waitFor();
    expect(await e.getByRole('button', { name: 'Ask to be added' }).isDisabled()).toBe(true);
    await e.getByText('this install is already on the licence').first().waitFor();
    const look = e.getByRole('form', { name: 'Look at a request' });
    const requestText = look.getByLabel('Request text from the new install');
    // A header edited by hand no longer matches the signed payload: no Vouch form, and why.
    await requestText.fill(asked.text.replace('Label: dr-site-b', 'Label: prod-site-a'));
    await look.getByRole('button', { name: 'Look at the request' }).click();
    await e
      .getByRole('alert')
      .filter({ hasText: 'This request cannot be vouched for: headers_match_payload' })
      .waitFor();
    expect(
      await e.getByRole('list', { name: 'checks' }).getByRole('listitem').allTextContents(),
    ).toContainEqual(expect.stringMatching(/^✗ headers match payload/));
    expect(await e.getByRole('form', { name: 'Vouch' }).count()).toBe(0);

    await requestText.fill(asked.text);
    await look.getByRole('button', { name: 'Look at the request' }).click();
    await e.getByLabel('digits to compare').filter({ hasText: asked.code }).waitFor();
    expect(await e.getByLabel('digits to compare').textContent()).toBe(asked.code);
    const checks = await e
      .getByRole('list', { name: 'checks' })
      .getByRole('listitem')
      .allTextContents();
    expect(checks.filter((c) => !c.startsWith('✓ '))).toEqual([]);
    for (const name of ['armour', 'signature', 'headers match payload', 'not seen before'])
      expect(checks).toContainEqual(expect.stringMatching(new RegExp(`^✓ ${name}`)));
    expect(checks).toContainEqual(expect.stringMatching(/^✓ not expired — \d+ d \d+ h left$/));
    expect(checks).toContain('✓ seat available — 1 of 10 installs used');
    const checked = (await e.getByLabel('request checked').textContent()) ?? '';
    expect(checked).toContain(N_FP);
    expect(checked).toContain(`last group ${N_FP.split('-').pop() ?? ''}`);
    const vouch = e.getByRole('form', { name: 'Vouch' });
    const button = vouch.getByRole('button', { name: 'Vouch' });
    const typed = vouch.getByLabel('Code read out from the new install');
    // Until six digits are typed, Vouch says why it waits.
    expect(await button.isDisabled()).toBe(true);
    await vouch.getByText('type the 6-digit code first').waitFor();
    await typed.fill(asked.code.slice(0, 5));
    expect(await button.isDisabled()).toBe(true);
    await typed.fill(wrongCode(asked.code));
    await button.click();
    const refused = e.getByRole('alert').filter({ hasText: 'the code does not match' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('attempt 1 of 5');
    await shoot(e, '90-licence-look-mismatch');
    await typed.fill(asked.code.replace(' ', ''));
    await button.click();
    const result = e.getByRole('status', { name: 'vouch result' });
    await result.getByText(/^✓ Granted\b/).waitFor();
    grant = await result
      .getByLabel('Answer to carry back and paste on the new install')
      .inputValue();
    expect(grant).toMatch(/^-----BEGIN SVC INSTALL GRANT-----\n/);
    expect(await e.getByRole('alert').count()).toBe(0);
    // N is on the list now, holding a seat until the grant ends.
    await heading.filter({ hasText: '2 of 10' }).waitFor();
    const row = e
      .getByRole('table', { name: 'installs on the licence' })
      .getByRole('row')
      .filter({ hasText: N_FP });
    expect(await row.textContent()).toMatch(/dr-site-b.*dr.*vouch until/);
    await shoot(e, '91-licence-vouched');
  });

  it('back on N: the grant pasted installs; the page says it is covered, status shows vouched_until, poll says granted', async () => {
    if (n === undefined) throw new Error('N did not start');
    expect(grant).not.toBe('');
    await nPage.getByLabel('The answer you were given (an install grant or a licence)').fill(grant);
    await nPage.getByRole('button', { name: 'Install the answer' }).click();
    await nPage
      .getByRole('status')
      .filter({ hasText: '✓ Installed: this install is now covered.' })
      .waitFor();
    const nStatus = await httpAt<{
      mode: string;
      licence: { valid: boolean; vouched_until: string | null } | null;
    }>(n.url, n.adminToken, 'GET', '/v1/status');
    expect(nStatus.body.mode).not.toBe('setup');
    expect(nStatus.body.licence?.valid).toBe(true);
    expect(nStatus.body.licence?.vouched_until).toMatch(/^\d{4}-\d\d-\d\dT/);
    const self = nPage.getByLabel('this install', { exact: true });
    await self.getByText('✓ yes').waitFor();
    expect(await self.textContent()).toContain('Vouched until');
    await nPage.getByRole('button', { name: 'Where does my request stand?' }).click();
    const state = nPage
      .getByRole('list', { name: 'request state' })
      .getByRole('listitem')
      .filter({ hasText: asked.req_id });
    await state.locator('strong').filter({ hasText: 'granted' }).waitFor();
    await nPage
      .getByRole('table', { name: 'requests' })
      .getByRole('row')
      .filter({ hasText: asked.req_id })
      .filter({ hasText: 'granted' })
      .waitFor();
  });

  it('a viewer sees every exchange button disabled with why; the usage statement downloads for an admin only', async () => {
    const v = await pageWith(viewerToken);
    const why = 'needs the admin role (you are viewer)';
    await v.goto(`${svc.url}/licence`);
    await v.getByRole('heading', { name: /^Installs/ }).waitFor();
    for (const name of ['Ask to be added', 'Look at the request', 'Where does my request stand?']) {
      expect(await v.getByRole('button', { name }).isDisabled(), name).toBe(true);
    }
    const removes = v.getByRole('button', { name: 'Remove…' });
    expect(await removes.count()).toBe(2);
    for (const b of await removes.all()) expect(await b.isDisabled()).toBe(true);
    expect(await v.getByText(why).count()).toBeGreaterThan(3);
    expect(await v.getByRole('button', { name: 'Download usage statement' }).isDisabled()).toBe(
      true,
    );
    await v.getByText('Usage statements need the admin role.').waitFor();
    await shoot(v, '92-licence-installs-viewer');

    // The real statement, with the licence E holds in force.
    const a = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await signInWithAdminToken(a, `${svc.url}/licence`, svc.adminToken);
    const download = a.waitForEvent('download');
    await a.getByRole('button', { name: 'Download usage statement' }).click();
    expect((await download).suggestedFilename()).toMatch(/^usage-statement-[\d-]+\.json$/);
    await a
      .getByRole('status')
      .filter({ hasText: /Saved usage-statement-/ })
      .waitFor();
    await a.close();
  });
});
