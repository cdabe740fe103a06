// The console's frame in a real Chromium against an in-process server on a real socket:
// a lost connection is said (banner with "data as of", data dimmed, mode shown as last
// known, controls that need the service disabled with the reason, the halt included) and
// mended by itself when the service is back on the same port and data folder; on a phone
// the pages go into a Menu and the top bar fits; the admin token's session is named as
// such, never as a person; a requester shows by the person's current name.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  buildTestServer,
  personOn,
  type TestServer,
} from '../../server/testing/test-server.js';
import { launch, onLiveSignedIn, resize, shoot } from './browser.js';

requireBundle();

let server: TestServer;
let port = 0;
let url = '';
let browser: Browser | undefined;
let page: Page;

async function listen(s: TestServer): Promise<void> {
  await s.app.listen({ port, host: '127.0.0.1' });
}

beforeAll(async () => {
  server = await buildTestServer({ delayMs: 0 });
  port = await freePort();
  await listen(server);
  url = `http://127.0.0.1:${String(port)}`;
  browser = await launch();
  page = await onLiveSignedIn(browser, url, ADMIN_TOKEN);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

const halt = () => page.getByRole('button', { name: /Halt all actions/ });
const lost = () => page.getByRole('alert').filter({ hasText: 'Connection lost' });

describe('a lost connection', () => {
  it('is said in a banner with the time of the data, the data dimmed, controls disabled', async () => {
    await page.getByText(/● seq \d/).waitFor();
    expect(await halt().isEnabled()).toBe(true);
    const modeBefore = (await page.locator('.mode').textContent()) ?? '';
    await server.stop();
    await lost().waitFor({ timeout: 20_000 });
    expect(await lost().textContent()).toMatch(
      /Connection lost — data as of \d\d:\d\d:\d\d, reconnecting…/,
    );
    // The page's data is dimmed and marked busy while it cannot be refreshed.
    const main = page.locator('[aria-busy="true"] main');
    await main.waitFor();
    const opacity = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('[aria-busy="true"] main')).opacity`,
    );
    expect(Number(opacity)).toBeLessThan(1);
    // The mode is what was last known, not a claim about now.
    const mode = (await page.locator('.mode').textContent()) ?? '';
    expect(mode).toContain('last known');
    expect(mode).toContain(modeBefore);
    // The halt cannot be sent and says why; it does not look like a live control.
    expect(await halt().isDisabled()).toBe(true);
    expect(await halt().getAttribute('title')).toContain('the service cannot be reached');
    expect(await page.locator('.topbar .seq').textContent()).toContain('disconnected');
    await shoot(page, '120-offline');
  });

  it('goes away by itself when the service is back on the same port and data', async () => {
    server = await buildTestServer({ delayMs: 0, dir: server.dir });
    await listen(server);
    await lost().waitFor({ state: 'detached', timeout: 30_000 });
    expect(await page.locator('[aria-busy="true"] main').count()).toBe(0);
    await expect.poll(() => halt().isEnabled(), { timeout: 10_000 }).toBe(true);
    expect((await page.locator('.mode').textContent()) ?? '').not.toContain('last known');
  });
});

describe('the wall display without the service', () => {
  it('dims everything and says since when its data is old, then mends by itself', async () => {
    await page.goto(`${url}/wall`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByText(/· all services · seq \d/).waitFor();
    await server.stop();
    const old = page.getByRole('alert').filter({ hasText: 'Data as of' });
    await old.waitFor({ timeout: 20_000 });
    expect(await old.textContent()).toMatch(/^Data as of \d\d:\d\d:\d\d — reconnecting$/);
    const opacity = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('.wall h1')).opacity`,
    );
    expect(Number(opacity)).toBeLessThan(1);
    await shoot(page, '122-wall-offline');
    server = await buildTestServer({ delayMs: 0, dir: server.dir });
    await listen(server);
    await old.waitFor({ state: 'detached', timeout: 30_000 });
    await page.goto(`${url}/live`);
    await page.getByRole('heading', { name: /Live/, level: 1 }).waitFor();
  });
});

describe('on a phone', () => {
  it('puts the pages in a Menu that opens, closes on Escape and gives focus back', async () => {
    await resize(page, { width: 390, height: 844 });
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    const nav = page.getByRole('navigation', { name: 'pages' });
    expect(await nav.getByRole('link', { name: 'Episodes' }).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await nav.getByRole('link', { name: 'Keychain' }).isVisible()).toBe(true);
    // Focus moves into the list, so the keyboard goes on from there.
    expect(await page.evaluate<boolean>(`document.activeElement?.closest('nav') !== null`)).toBe(
      true,
    );
    await shoot(page, '121-phone-menu');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.getByRole('link', { name: 'Episodes' }).isVisible()).toBe(false);
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Menu');
    // Choosing a page closes the menu.
    await menu.click();
    await nav.getByRole('link', { name: 'Episodes' }).click();
    await page.getByRole('heading', { name: /Episodes/, level: 1 }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
  });

  it('fits the top bar in two lines and nothing scrolls sideways', async () => {
    await resize(page, { width: 390, height: 844 });
    await page.goto(`${url}/live`);
    await page.getByRole('heading', { name: /Live/, level: 1 }).waitFor();
    const bar = await page.locator('header.topbar').boundingBox();
    expect(bar?.height ?? 999).toBeLessThanOrEqual(100);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    await shoot(page, '122-phone-live');
  });

  it('does not put the focus in the halt reason when the Autonomy page opens', async () => {
    await page.goto(`${url}/autonomy`);
    await page.getByRole('heading', { name: 'Autonomy', level: 1 }).waitFor();
    await page.getByLabel(/Reason for halting/).waitFor();
    expect(await page.evaluate<string>(`document.activeElement?.getAttribute('name')`)).not.toBe(
      'reason',
    );
    await resize(page, { width: 1440, height: 900 });
  });
});

describe('attribution', () => {
  it('names the admin token session as the admin token, not a person called owner', async () => {
    // The admin token signs in as the first owner, whose id and name are both "owner".
    await page.goto(`${url}/live`);
    const me = page.locator('.topbar .right .me');
    await me.waitFor();
    const text = (await me.textContent()) ?? '';
    expect(text).toBe('admin token (owner)');
    expect(text).not.toContain('owner (owner)');
  });

  it("shows a requester by the person's name, and a removed person as such", async () => {
    const ann = await personOn(server, 'ann@example.test', 'admin');
    const bob = await personOn(server, 'bob@example.test', 'viewer');
    // A raise needs two admins besides whoever asks.
    await personOn(server, 'carl@example.test', 'admin');
    await personOn(server, 'dora@example.test', 'admin');
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    // Ann asks herself, then is renamed: the card shows the name she has now.
    const raised = await server.app.inject({
      method: 'POST',
      url: '/v1/autonomy',
      headers: bearer(ann.token),
      payload: { service: 'payments', level: 'L1' },
    });
    expect(raised.statusCode, raised.body).toBe(202);
    const renamed = await server.app.inject({
      method: 'PUT',
      url: `/v1/users/${ann.user.id}`,
      headers: asAdmin(),
      payload: { name: 'Ann Rossi' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    // Automation with the admin token names a person by id as `by`.
    const onBehalf = await server.app.inject({
      method: 'POST',
      url: '/v1/autonomy',
      headers: asAdmin(),
      payload: { service: 'billing', level: 'L1', by: bob.user.id },
    });
    expect(onBehalf.statusCode, onBehalf.body).toBe(202);
    await page.goto(`${url}/approvals`);
    const payments = page.getByRole('article', { name: /payments/ });
    const billing = page.getByRole('article', { name: /billing/ });
    await payments.getByText('requested by Ann Rossi').waitFor();
    await billing.getByText('requested by bob').waitFor();
    expect(await billing.textContent()).not.toContain('usr-');
    // Bob leaves: his id stays, said to be a removed person.
    const gone = await server.app.inject({
      method: 'DELETE',
      url: `/v1/users/${bob.user.id}`,
      headers: asAdmin(),
    });
    expect(gone.statusCode).toBe(200);
    await page.reload();
    await billing.getByText(`requested by removed person ${bob.user.id}`).waitFor();
    await shoot(page, '123-approvals-requester');
  });
});

describe('the keyboard', () => {
  it('lists every shortcut on ?, goes to a page on g then its letter, and not while typing', async () => {
    await page.goto(`${url}/live`);
    await page.getByRole('heading', { name: /Live/, level: 1 }).waitFor();
    await page.getByRole('heading', { name: /Live/, level: 1 }).click();
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.waitFor();
    expect(await sheet.textContent()).toContain('pause or resume the live list');
    await shoot(page, '160-shortcuts');
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });
    // g shows the hint; Escape ends the wait (and goes nowhere).
    await page.keyboard.press('g');
    await page.getByRole('status').filter({ hasText: 'g —' }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByText('g — then a letter').count()).toBe(0);
    // g then a, as fast as a person types them: Approvals.
    await page.keyboard.press('g');
    await page.keyboard.press('a');
    await page.getByRole('heading', { name: /^Approvals/, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/approvals');
    // In the palette's box, g and e are letters.
    await page.keyboard.press('Control+k');
    const box = page.getByRole('combobox', { name: /Search pages/ });
    await box.waitFor();
    await page.keyboard.type('ge');
    expect(await box.inputValue()).toBe('ge');
    expect(new URL(page.url()).pathname).toBe('/approvals');
    // The palette opens the list too.
    await box.fill('keyboard');
    await page.keyboard.press('Enter');
    await sheet.waitFor();
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });
  });
});
