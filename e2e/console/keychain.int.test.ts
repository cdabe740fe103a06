// The Keychain page in a real Chromium against real bundled services (issue 20): an install in
// no keychain shows its full fingerprint and is made the home; two site keys are shown once (a
// reload, or leaving the page, forgets them) and listed open, one revoked; a second real
// service started with SVC_KEYCHAIN_JOIN and the other key joins and shows on the home with
// health ok, while its own console says "Member of" the home and offers no home-only action;
// the home removes it after a confirmation naming its full fingerprint, and the removed
// install's Sync now says so and leaves; a sealed file is refused with two different
// passphrases in the form, then downloaded as keychain-<version>.sealed; the left install
// opens it: a wrong passphrase in plain words, the right one lists the parts applied. A viewer
// sees every action disabled, naming the admin role. Nothing scrolls sideways at 390 px.
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, until, type Proc } from '../lab/processes.js';
import {
  shoot,
  signInWithAdminToken,
  startConsole,
  type ConsoleBench,
  widthAtPhone,
} from './browser.js';

type Json = Record<string, unknown>;
interface View {
  role: string;
  fingerprint: string;
  keychain_id: string | null;
  epoch: number | null;
  members: { label: string; fingerprint: string; health: string }[];
  site_keys: { id: string; label: string; status: string }[];
  carried: string[];
  owned?: string[];
}

const PASSPHRASE = 'correct horse battery staple';

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
/** The home's console, as the admin token. */
let page: Page;
/** The second install (dc-b), joined with a site key, then removed. */
let second: (Proc & { adminToken: string }) | undefined;
let secondPage: Page;
let secondFp = '';
const contexts: BrowserContext[] = [];
/** Site keys as the page showed them once, by label. */
const shown = new Map<string, string>();
let sealedFile = '';

async function httpAt<T = Json>(
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

const view = async (base: string): Promise<View> =>
  (await httpAt<View>(base, svc.adminToken, 'GET', '/v1/keychain')).body;

/** ABCD-EFGH-…: how the page prints a fingerprint. */
const grouped = (fp: string): string => (fp.match(/.{1,4}/g) ?? []).join('-');

/** A person of `role` with a session (break-glass bootstrap makes them owner; then the role). */
async function person(email: string, name: string, role: string): Promise<string> {
  const made = await httpAt<{ id: string }>(svc.url, svc.adminToken, 'POST', '/v1/users', {
    email,
    name,
    role,
  });
  expect(made.status).toBe(201);
  const boot = await httpAt<{ token: string }>(
    svc.url,
    svc.adminToken,
    'POST',
    '/v1/auth/bootstrap',
    { email, name },
  );
  expect(boot.status).toBe(200);
  if (role !== 'owner') {
    const put = await httpAt(svc.url, svc.adminToken, 'PUT', `/v1/users/${made.body.id}`, {
      role,
    });
    expect(put.status).toBe(200);
  }
  return boot.body.token;
}

async function newPage(): Promise<Page> {
  const ctx = await browser.newContext({
    viewport: { width: 1366, height: 900 },
    acceptDownloads: true,
  });
  contexts.push(ctx);
  return ctx.newPage();
}

const roleLine = (p: Page) => p.getByLabel('keychain role');
const membersTable = (p: Page) => p.getByRole('table', { name: 'members' });
const keysTable = (p: Page) => p.getByRole('table', { name: 'site keys' });
const keyRow = (p: Page, label: string) => keysTable(p).getByRole('row').filter({ hasText: label });
const onceBox = (p: Page) => p.getByRole('region', { name: 'New site keys, shown once' });
const navTo = (p: Page, name: string) =>
  p.getByRole('navigation', { name: 'pages' }).getByRole('link', { name, exact: true }).click();

beforeAll(async () => {
  bench = await startConsole({ SVC_INSTANCE: 'dc-a' });
  ({ svc, browser } = bench);
  page = await newPage();
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await second?.stop();
  await bench?.stop();
});

describe('the Keychain page', () => {
  it('in no keychain, shows the full fingerprint; an admin makes the install the home', async () => {
    const before = await view(svc.url);
    expect(before.role).toBe('none');
    await signInWithAdminToken(page, `${svc.url}/keychain`, svc.adminToken);
    await page.getByRole('heading', { name: 'Keychain', exact: true }).waitFor();
    const nav = page.getByRole('navigation', { name: 'pages' });
    expect(await nav.locator('.current').textContent()).toBe('Keychain');
    await roleLine(page).getByText('○ Not in a keychain').waitFor();
    const facts = page.getByLabel('this install in the keychain');
    expect(await facts.textContent()).toContain(grouped(before.fingerprint));
    await page.getByRole('button', { name: `Copy fingerprint ${before.fingerprint}` }).click();
    await facts
      .getByRole('status')
      .filter({ hasText: /Copied|Could not copy/ })
      .waitFor();
    // Members and site keys wait for a keychain.
    expect(await membersTable(page).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Make site keys' }).count()).toBe(0);
    await shoot(page, '60-keychain-none');

    const make = page.getByRole('button', { name: 'Make this install the home' });
    expect(await make.isDisabled()).toBe(true); // no label yet
    await page.getByLabel('Label for this install (how members will name it)').fill('DC A');
    await make.click();
    await roleLine(page).getByText('⌂ Home').waitFor();
    const home = await view(svc.url);
    expect(home).toMatchObject({ role: 'home', epoch: 1 });
    const text = (await facts.textContent()) ?? '';
    expect(text).toContain(home.keychain_id ?? 'no id');
    expect(text).toMatch(/Epoch1/);
    expect(text).toContain(grouped(home.fingerprint));
    const self = membersTable(page).getByRole('row').filter({ hasText: 'DC A' });
    expect(await self.textContent()).toContain('(this install)');
    expect(await self.textContent()).toContain('⌂ home');
    await page
      .getByRole('list', { name: 'parts' })
      .getByText('carried from here')
      .first()
      .waitFor();
    // The join instructions name this console's origin.
    expect(await page.getByLabel('how a new site joins').textContent()).toContain(
      `SVC_KEYCHAIN_JOIN=${svc.url}`,
    );
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
  });

  it('shows two new site keys once: dismissed or reloaded they are gone, and the table lists them open', async () => {
    const homeFp = (await view(svc.url)).fingerprint;
    await page.getByLabel('Labels, one per line (one key for each new site)').fill('dc-b\nspare');
    await page.getByRole('button', { name: 'Make site keys' }).click();
    const box = onceBox(page);
    await box.waitFor();
    expect(await box.textContent()).toContain('it will not be shown again');
    for (const label of ['dc-b', 'spare']) {
      const key = await box
        .getByLabel(`site key for ${label}`)
        .locator('.kc-key code')
        .textContent();
      expect(key).toMatch(new RegExp(`^skc1\\.[A-Za-z0-9]{8}\\.[A-Z2-7]{32}\\.${homeFp}$`));
      shown.set(label, key ?? '');
      await box.getByRole('button', { name: `Copy the site key for ${label}` }).waitFor();
    }
    // The form is emptied: the labels are not kept for a second batch by mistake.
    expect(
      await page.getByLabel('Labels, one per line (one key for each new site)').inputValue(),
    ).toBe('');
    await keyRow(page, 'dc-b').getByText('○ open').waitFor();
    await shoot(page, '61-keychain-keys-shown-once');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);

    await box.getByRole('button', { name: 'I have copied them: hide the keys' }).click();
    await box.waitFor({ state: 'detached' });
    await page.reload();
    await keysTable(page).waitFor();
    const html = await page.content();
    for (const key of shown.values()) {
      expect(html).not.toContain(key);
      // Only the id shows, never the secret.
      expect(html).not.toContain(key.split('.')[2]);
    }
    expect(await onceBox(page).count()).toBe(0);
    for (const label of ['dc-b', 'spare'])
      expect(await keyRow(page, label).getByText('○ open').count()).toBe(1);
    const api = await view(svc.url);
    expect(api.site_keys.map((k) => `${k.label} ${k.status}`).sort()).toEqual([
      'dc-b open',
      'spare open',
    ]);
  });

  it('forgets a key shown once when the page is left, and revokes an open key', async () => {
    await page.getByLabel('Labels, one per line (one key for each new site)').fill('left-behind');
    await page.getByRole('button', { name: 'Make site keys' }).click();
    const key = await onceBox(page)
      .getByLabel('site key for left-behind')
      .locator('.kc-key code')
      .textContent();
    expect(key).toMatch(/^skc1\./);
    // Away and straight back, before the other page has even loaded: the key is gone.
    await navTo(page, 'Licence');
    await navTo(page, 'Keychain');
    await keysTable(page).waitFor();
    expect(await onceBox(page).count()).toBe(0);
    expect(await page.content()).not.toContain(key ?? 'no key');
    await page.getByLabel('Labels, one per line (one key for each new site)').fill('left-too');
    await page.getByRole('button', { name: 'Make site keys' }).click();
    const again = await onceBox(page)
      .getByLabel('site key for left-too')
      .locator('.kc-key code')
      .textContent();
    // Away to a page that loads in full, and back.
    await navTo(page, 'Licence');
    await page.getByRole('form', { name: 'Install a licence' }).waitFor();
    await navTo(page, 'Keychain');
    await keysTable(page).waitFor();
    expect(await onceBox(page).count()).toBe(0);
    expect(await page.content()).not.toContain(again ?? 'no key');

    for (const label of ['spare', 'left-behind', 'left-too']) {
      await keyRow(page, label).getByRole('button', { name: 'Revoke' }).click();
      await keyRow(page, label).getByText('✕ revoked').waitFor();
    }
    expect(await keyRow(page, 'dc-b').getByText('○ open').count()).toBe(1);
  });

  it('a second install started with SVC_KEYCHAIN_JOIN and the other key shows as a member, health ok', async () => {
    second = await startService({
      SVC_INSTANCE: 'dc-b',
      SVC_KEYCHAIN_JOIN: svc.url,
      SVC_KEYCHAIN_SITE_KEY: shown.get('dc-b') ?? '',
    });
    const joined = await until('dc-b to join', async () => {
      const v = await view(second?.url ?? '');
      return v.role === 'member' ? v : undefined;
    });
    secondFp = joined.fingerprint;
    // The home's page learns it without a reload (the ledger's seq moved).
    const row = membersTable(page).getByRole('row').filter({ hasText: 'dc-b' });
    await row.getByText('● ok').waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toContain(secondFp.slice(0, 12));
    expect(await row.textContent()).toMatch(/site key [A-Za-z0-9]{8}/);
    await keyRow(page, 'dc-b').getByText('✓ used').waitFor();
    expect(await keyRow(page, 'dc-b').textContent()).toContain('dc-b');
    await shoot(page, '62-keychain-member-joined');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);

    // The member's own console: "Member of DC A", parts changed on the home, no home-only action.
    secondPage = await newPage();
    await signInWithAdminToken(secondPage, `${second.url}/keychain`, second.adminToken);
    await roleLine(secondPage).getByText('◆ Member of DC A').waitFor();
    expect(await secondPage.getByLabel('this install in the keychain').textContent()).toContain(
      grouped(secondFp),
    );
    await secondPage
      .getByRole('list', { name: 'parts' })
      .getByText('changed on the home DC A')
      .first()
      .waitFor();
    expect(await secondPage.getByRole('button', { name: 'Make site keys' }).count()).toBe(0);
    expect(await secondPage.getByRole('button', { name: 'Remove…' }).count()).toBe(0);
    await secondPage.getByText('Site keys are made on the home,').waitFor();
    expect(await secondPage.getByRole('button', { name: 'Leave the keychain…' }).isEnabled()).toBe(
      true,
    );
    await shoot(secondPage, '63-keychain-member');
    expect(await widthAtPhone(secondPage)).toBeLessThanOrEqual(390);
  });

  it('lets an admin stop carrying a part on the home, and keep its own copy on the member', async () => {
    if (secondPage === undefined) throw new Error('the member page is not open');
    const homeParts = page.getByRole('list', { name: 'parts' });
    await page.getByRole('button', { name: 'Stop carrying Branding' }).click();
    await homeParts
      .getByRole('listitem')
      .filter({ hasText: 'Branding' })
      .getByText('not carried: each member keeps its own')
      .waitFor();
    expect((await view(svc.url)).carried).not.toContain('branding');
    await page.getByRole('button', { name: 'Carry Branding again' }).click();
    await page.getByRole('button', { name: 'Stop carrying Branding' }).waitFor();
    expect((await view(svc.url)).carried).toContain('branding');

    const memberParts = secondPage.getByRole('list', { name: 'parts' });
    await secondPage.getByRole('button', { name: 'Sync now' }).click();
    await secondPage.getByRole('button', { name: 'Keep own Policy' }).click();
    await memberParts
      .getByRole('listitem')
      .filter({ hasText: 'Policy' })
      .getByText('this member keeps its own copy')
      .waitFor();
    expect((await view(second?.url ?? '')).owned).toEqual(['policy']);
    await shoot(secondPage, '89-keychain-member-keeps-own');
    await secondPage.getByRole('button', { name: 'Take the home’s Policy' }).click();
    await memberParts
      .getByRole('listitem')
      .filter({ hasText: 'Policy' })
      .getByText('changed on the home DC A')
      .waitFor();
    expect((await view(second?.url ?? '')).owned).toEqual([]);
    expect(await widthAtPhone(secondPage)).toBeLessThanOrEqual(390);
  });

  it('renames the member, then removes it after a confirmation naming it and its full fingerprint', async () => {
    const row = membersTable(page).getByRole('row').filter({ hasText: 'dc-b' }).first();
    await row.getByRole('button', { name: 'Rename…' }).click();
    const rename = page.getByRole('form', { name: 'Rename dc-b' });
    await rename.getByLabel('New label').fill('dc-b east');
    await rename.getByRole('button', { name: 'Save label' }).click();
    await rename.waitFor({ state: 'detached' });
    await row.getByText('dc-b east').waitFor();
    expect((await view(svc.url)).members.map((m) => m.label)).toEqual(['DC A', 'dc-b east']);

    await row.getByRole('button', { name: 'Remove…' }).click();
    const ask = page.getByRole('dialog', { name: 'Remove dc-b east from the keychain?' });
    await ask.waitFor();
    expect(await ask.textContent()).toContain(grouped(secondFp));
    await shoot(page, '64-keychain-remove-confirm');
    // Cancel changes nothing.
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect((await view(svc.url)).members.map((m) => m.label)).toContain('dc-b east');
    await row.getByRole('button', { name: 'Remove…' }).click();
    await ask.getByRole('button', { name: 'Remove dc-b east' }).click();
    await until('dc-b to leave the members table', async () =>
      (await membersTable(page).getByText('dc-b').count()) === 0 ? true : undefined,
    );
    expect((await view(svc.url)).members.map((m) => m.label)).toEqual(['DC A']);

    // The removed install hears it at its next call: Sync now makes that call at once. Its
    // timed pull may have heard it first, so the answer is either the removal or "in no
    // keychain"; either way the page ends as not in a keychain. The refreshed view can take the
    // Sync section (and its alert) away within a frame, so either one showing is enough here.
    const sync = secondPage.getByRole('button', { name: 'Sync now' });
    if ((await sync.count()) > 0 && (await sync.isEnabled())) {
      await sync.click();
      await secondPage
        .getByRole('alert')
        .filter({ hasText: /removed this install|in no keychain/ })
        .or(roleLine(secondPage).getByText('○ Not in a keychain'))
        .first()
        .waitFor({ timeout: 40_000 });
    }
    await roleLine(secondPage).getByText('○ Not in a keychain').waitFor({ timeout: 40_000 });
  });

  it('seals a file: two different passphrases are refused in the form, then keychain-<version>.sealed downloads', async () => {
    const sealCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/keychain/seal')) sealCalls.push(r.method());
    });
    const form = page.getByRole('form', { name: 'Seal a file' });
    await form.getByLabel('Passphrase (at least 12 characters)').fill('short');
    await form.getByLabel('The passphrase again').fill('short');
    await form.getByRole('button', { name: 'Seal and download' }).click();
    await form.getByRole('alert').filter({ hasText: 'at least 12 characters' }).waitFor();
    await form.getByLabel('Passphrase (at least 12 characters)').fill(PASSPHRASE);
    await form.getByLabel('The passphrase again').fill(`${PASSPHRASE}!`);
    await form.getByRole('button', { name: 'Seal and download' }).click();
    await form.getByRole('alert').filter({ hasText: 'The two passphrases differ' }).waitFor();
    expect(sealCalls).toEqual([]);
    await shoot(page, '65-keychain-seal-mismatch');

    await form.getByLabel('The passphrase again').fill(PASSPHRASE);
    const download = page.waitForEvent('download');
    await form.getByRole('button', { name: 'Seal and download' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^keychain-\d+\.sealed$/);
    sealedFile = readFileSync(await file.path(), 'utf8');
    expect(sealedFile.length).toBeGreaterThan(100);
    const done = form.getByRole('status', { name: 'sealed file' });
    await done.waitFor();
    expect(await done.textContent()).toMatch(
      /Sealed version \d+ \(Connections, Mail, Sign-in, People, Policy, Branding, Impact figures\)/,
    );
    expect(await done.textContent()).toContain(file.suggestedFilename());
    // The passphrase is not kept after the call.
    expect(await form.getByLabel('Passphrase (at least 12 characters)').inputValue()).toBe('');
    expect(await form.getByLabel('The passphrase again').inputValue()).toBe('');
    expect(sealCalls).toEqual(['POST']);
    await shoot(page, '66-keychain-sealed');
  });

  it('another install opens the file: a wrong passphrase in plain words, the right one lists what was applied', async () => {
    const p = secondPage;
    const form = p.getByRole('form', { name: 'Open a sealed file' });
    await form.getByLabel('Sealed file').setInputFiles({
      name: 'keychain.sealed',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(sealedFile),
    });
    await form.getByText('Read keychain.sealed.').waitFor();
    await form.getByLabel('Passphrase of the file').fill('not the passphrase at all');
    await form.getByRole('button', { name: 'Open and apply' }).click();
    const refused = form.getByRole('alert').filter({ hasText: 'the passphrase is wrong' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('Nothing was applied.');
    expect(await refused.textContent()).not.toContain('sealed_unreadable');
    await shoot(p, '67-keychain-unseal-wrong');

    await form.getByLabel('Passphrase of the file').fill(PASSPHRASE);
    await form.getByRole('button', { name: 'Open and apply' }).click();
    const result = form.getByRole('status', { name: 'sealed file result' });
    await result.waitFor();
    expect(await result.textContent()).toMatch(/Version \d+ opened/);
    expect(await result.textContent()).toContain(
      'AppliedConnections, Mail, Sign-in, People, Policy, Branding, Impact figures',
    );
    expect(await form.getByLabel('Passphrase of the file').inputValue()).toBe('');
    await shoot(p, '68-keychain-unsealed');
    expect(await widthAtPhone(p)).toBeLessThanOrEqual(390);
  });

  it('a viewer sees the page with every action disabled, naming the admin role', async () => {
    const viewer = await newPage();
    await viewer.goto(`${svc.url}/`);
    // Bootstrap makes a person owner; the last owner cannot be made a viewer, so one stays.
    await person('olive@lab.test', 'Olive Owner', 'owner');
    const token = await person('vic@lab.test', 'Vic Viewer', 'viewer');
    await viewer.evaluate(`localStorage.setItem('svc.session', ${JSON.stringify(token)})`);
    await viewer.goto(`${svc.url}/keychain`);
    await roleLine(viewer).getByText('⌂ Home').waitFor();
    for (const name of [
      'Sync now',
      'Stop carrying Policy',
      'Make site keys',
      'Rename…',
      'Seal and download',
      'Open and apply',
    ]) {
      const buttons = await viewer.getByRole('button', { name, exact: true }).all();
      expect(buttons.length, name).toBeGreaterThan(0);
      for (const b of buttons) {
        expect(await b.isDisabled(), name).toBe(true);
        expect(await b.getAttribute('title'), name).toMatch(/needs the admin role/);
      }
    }
    const why = await viewer.getByText(/needs the admin role; you are signed in as viewer/).count();
    expect(why).toBeGreaterThanOrEqual(4);
    expect(await viewer.getByLabel('Passphrase of the file').isDisabled()).toBe(true);
    await shoot(viewer, '69-keychain-viewer');
    expect(await widthAtPhone(viewer)).toBeLessThanOrEqual(390);
  });
});
