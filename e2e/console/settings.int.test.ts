// Branding from the console in a real Chromium against the bundled service: the admin sets a
// name, accent, dark theme, a logo and a support link on /settings; the console applies them
// at once (title, <html data-theme>, the top bar) without a reload, GET /v1/branding answers
// them to anyone, and a bad link is explained beside its field and changes nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Proc } from '../lab/processes.js';
import { shoot, signInWithAdminToken, startConsole, type ConsoleBench } from './browser.js';

// A 1×1 PNG, built here: signature, IHDR (RGBA, 8 bits), one deflated scanline, IEND.
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
const PNG = Buffer.concat([
  Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
  chunk('IHDR', Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])),
  chunk('IDAT', deflateSync(Buffer.from([0, 0xaa, 0x33, 0x55, 0xff]))),
  chunk('IEND', Buffer.alloc(0)),
]);
const PNG_URI = `data:image/png;base64,${PNG.toString('base64')}`;

interface BrandingAnswer {
  name: string;
  logos: { light: string | null; dark: string | null; mark: string | null };
  theme: string;
  accent: string;
  support: { label: string; url: string }[];
  set_by: string | null;
  set_at: string | null;
}

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
let page: Page;
let files: string;

beforeAll(async () => {
  bench = await startConsole({});
  ({ svc, browser } = bench);
  files = mkdtempSync(join(tmpdir(), 'e2e-branding-'));
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
}, 60_000);

afterAll(async () => {
  await bench?.stop();
  rmSync(files, { recursive: true, force: true });
});

/** GET /v1/branding as anyone: no credential. */
async function branding(): Promise<{ etag: string | null; body: BrandingAnswer }> {
  const res = await fetch(`${svc.url}/v1/branding`);
  expect(res.status).toBe(200);
  return { etag: res.headers.get('etag'), body: (await res.json()) as BrandingAnswer };
}

describe('branding from the settings page', () => {
  it('signs in as admin on /settings', async () => {
    await signInWithAdminToken(page, `${svc.url}/settings`, svc.adminToken);
    await page.getByRole('form', { name: 'Branding' }).waitFor();
    expect(page.url()).toMatch(/\/settings$/);
    await expect(page.title()).resolves.toBe('Incident response');
    await shoot(page, '10-settings');
  });

  it('saves name, accent, theme, a logo and a link, and applies them without a reload', async () => {
    // Counts documents loaded from now on: none, if the change applies without a reload.
    let loads = 0;
    page.on('load', () => {
      loads += 1;
    });
    const form = page.getByRole('form', { name: 'Branding' });
    await form.getByLabel('Name', { exact: true }).fill('Night Ops');
    await form.getByLabel('Accent colour as #rrggbb').fill('#aa3355');
    await form.getByRole('radio', { name: 'Dark' }).check();
    const logo = join(files, 'mark.png');
    writeFileSync(logo, PNG);
    await form.getByLabel('Choose an image for the mark').setInputFiles(logo);
    await form.getByRole('img', { name: 'Preview of the mark' }).waitFor();
    await expect(form.getByText(`${String(PNG.length)} bytes`).count()).resolves.toBe(1);
    await form.getByRole('button', { name: 'Add a link' }).click();
    await form.getByLabel('Label of link 1').fill('Runbooks');
    await form.getByLabel('URL of link 1').fill('https://wiki.example/runbooks');
    await form.getByRole('button', { name: 'Save branding' }).click();

    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await expect.poll(() => page.title()).toBe('Night Ops');
    const html = page.locator('html');
    await expect.poll(() => html.getAttribute('data-theme')).toBe('dark');
    const topbar = page.locator('header.topbar');
    await topbar.getByText('Night Ops', { exact: true }).waitFor();
    expect(await topbar.locator('.brand-mark img').getAttribute('src')).toBe(PNG_URI);
    // #aa3355 is 2.9:1 on the dark background: links keep the dark theme's own accent.
    const accent = await page.evaluate<string>(
      "getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()",
    );
    expect(accent).toBe('#7fb0ff');
    expect(loads).toBe(0);
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot(page, '11-settings-saved');

    const { body } = await branding();
    expect(body).toMatchObject({
      name: 'Night Ops',
      theme: 'dark',
      accent: '#aa3355',
      logos: { light: null, dark: null, mark: PNG_URI },
      support: [{ label: 'Runbooks', url: 'https://wiki.example/runbooks' }],
    });
    expect(body.set_by).not.toBeNull();
  });

  it('explains a bad support link beside its field and changes nothing', async () => {
    const before = await branding();
    const form = page.getByRole('form', { name: 'Branding' });
    await form.getByRole('button', { name: 'Add a link' }).click();
    await form.getByLabel('Label of link 2').fill('Files');
    const url = form.getByLabel('URL of link 2');
    await url.fill('ftp://x');
    await form.getByRole('button', { name: 'Save branding' }).click();

    const error = form.locator('#branding-support-1-url-error');
    await error.waitFor();
    expect(await error.textContent()).toContain(
      'support.1.url must be an http://, https:// or mailto: link',
    );
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await url.getAttribute('aria-describedby')).toBe('branding-support-1-url-error');
    await expect
      .poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'))
      .toBe('branding-support-1-url');
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot(page, '12-settings-bad-link');

    const after = await branding();
    expect(after.etag).toBe(before.etag);
    expect(after.body).toEqual(before.body);
    await expect(page.title()).resolves.toBe('Night Ops');
  });
});

describe('impact figures, from the scorecard to the settings page and back', () => {
  it('leads from the scorecard to the form, saves the figures, and the scorecard says how it counts', async () => {
    await page.goto(`${svc.url}/episodes`);
    const card = page.getByRole('region', { name: 'scorecard' });
    const how = card.getByRole('note', { name: 'minutes saved formula' });
    await card.getByRole('button', { name: 'how minutes saved are counted' }).click();
    await how.waitFor();
    expect(await how.textContent()).toContain('Set the impact figures');
    await card.getByRole('link', { name: 'set impact figures' }).click();
    const form = page.getByRole('form', { name: 'impact figures' });
    await form.waitFor();
    expect(page.url()).toMatch(/\/settings#impact$/);
    expect(await page.getByLabel('impact figures last set').textContent()).toContain('Not set yet');

    await form.getByLabel('Minutes a person spends triaging an alert').fill('10');
    await form.getByLabel('Minutes a person spends on a fix').fill('20');
    await form.getByRole('button', { name: 'Save the impact figures' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await shoot(page, '13-settings-impact');
    const saved = await fetch(`${svc.url}/v1/impact`, {
      headers: { authorization: `Bearer ${svc.adminToken}` },
    });
    expect(((await saved.json()) as { figures: Record<string, unknown> }).figures).toMatchObject({
      currency: 'EUR',
      triage_min: 10,
      fix_min: 20,
      manual_resolve_min: 0,
    });

    await page.goto(`${svc.url}/episodes`);
    await card.getByRole('button', { name: 'how minutes saved are counted' }).click();
    await how.filter({ hasText: '10 min triage' }).waitFor();
    expect(await how.textContent()).toContain(
      "(10 min triage + 20 min fix) × 0 episodes the service's own verified action restored or resolved",
    );
    expect(await card.getByRole('link', { name: 'set impact figures' }).count()).toBe(0);
  });
});
