// Connections from the console in a real Chromium against the bundled service: the admin adds
// an http connection to a local server, tests it before saving, saves it and sees it healthy;
// the mode turns operating; a typed-in bearer token reaches the target but the API only ever
// shows a {file} reference; a bad url is explained beside the url field; a delete asks first.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until, type Proc } from '../lab/processes.js';
import { shoot, signInWithAdminToken, startConsole, type ConsoleBench } from './browser.js';

const TOKEN = 'e2e-bearer-s3cret-7f3a9c21d0b4';

interface ConnectorAnswer {
  name: string;
  kind: string;
  settings: Record<string, unknown>;
  problem: string | null;
  last_health: { ok: boolean; detail: string } | null;
}

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
let page: Page;
let target: Server;
let targetUrl: string;
/** The Authorization headers the target has seen. */
const authorizations: string[] = [];

beforeAll(async () => {
  target = createServer((req, res) => {
    if (req.headers.authorization !== undefined) authorizations.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok\n');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${String((target.address() as AddressInfo).port)}/healthz`;
  bench = await startConsole({});
  ({ svc, browser } = bench);
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
}, 60_000);

afterAll(async () => {
  await bench?.stop();
  await new Promise((resolve) => target.close(resolve));
});

/** GET /v1/connectors with the admin token. */
async function connectors(): Promise<{ text: string; list: ConnectorAnswer[] }> {
  const res = await fetch(`${svc.url}/v1/connectors`, {
    headers: { authorization: `Bearer ${svc.adminToken}` },
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, list: (JSON.parse(text) as { connectors: ConnectorAnswer[] }).connectors };
}

/** Open the add form, pick the http kind and fill the name and url. */
async function startAdding(name: string, url: string) {
  await page.getByRole('button', { name: 'Add a connection' }).click();
  const form = page.getByRole('form', { name: 'Add a connection' });
  await form.getByRole('radio', { name: /HTTP probe/ }).check();
  await form.getByRole('textbox', { name: /^Name/ }).fill(name);
  await form.getByRole('textbox', { name: /^url/ }).fill(url);
  return form;
}

describe('connections page', () => {
  it('signs in as admin on /connections and sees none yet', async () => {
    await signInWithAdminToken(page, `${svc.url}/connections`, svc.adminToken);
    await page.getByRole('heading', { name: /^Connections/ }).waitFor();
    expect(page.url()).toMatch(/\/connections$/);
    await page.getByText('No connections yet').waitFor();
  });

  it('adds an http connection, tests it, saves it and sees it healthy', async () => {
    const form = await startAdding('web', targetUrl);
    // The form is generated from the kind's settings: each kind with its description.
    await form.getByText('Probes one URL').waitFor();
    expect(await form.getByRole('spinbutton', { name: /^expect_status/ }).getAttribute('max')).toBe(
      '599',
    );
    await form.getByRole('checkbox', { name: /insecure_skip_verify/ }).waitFor();
    await form.getByRole('textbox', { name: /^headers/ }).waitFor();
    await form.getByText('Advanced').click();
    await form.getByRole('spinbutton', { name: 'timeout_s' }).fill('5');
    // A full-page shot of a scrolled page leaves Chromium's clicks astray: shoot from the top.
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot(page, '21-connection-form');

    await form.getByRole('button', { name: 'Test' }).click();
    const tested = form.getByRole('status').filter({ hasText: 'Test passed' });
    await tested.waitFor();
    expect(await tested.textContent()).toContain('HTTP 200');
    // A test stores nothing.
    expect((await connectors()).list).toEqual([]);

    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved web' }).waitFor();
    const row = page.getByRole('table', { name: 'connections' }).getByRole('row', { name: /web/ });
    await row.getByText(/✓ HTTP 200/).waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toContain('http');
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot(page, '20-connections');

    const saved = (await connectors()).list.find((c) => c.name === 'web');
    expect(saved).toMatchObject({
      kind: 'http',
      settings: { url: targetUrl },
      problem: null,
      last_health: { ok: true },
    });
  });

  it('turns the service operating once the connection answered', async () => {
    const mode = await until('mode operating', async () => {
      const res = await fetch(`${svc.url}/v1/status`);
      const body = (await res.json()) as { mode: string };
      return body.mode === 'operating' ? body.mode : undefined;
    });
    expect(mode).toBe('operating');
  });

  it('keeps a typed bearer token only as a file reference', async () => {
    const form = await startAdding('secured', targetUrl);
    await form.getByRole('radio', { name: 'Type it for bearer_token' }).check();
    await form.getByLabel('Value of bearer_token').fill(TOKEN);
    await form.getByRole('button', { name: 'Test' }).click();
    await form.getByRole('status').filter({ hasText: 'Test passed' }).waitFor();
    expect(authorizations).toContain(`Bearer ${TOKEN}`);

    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved secured' }).waitFor();
    const { text, list } = await connectors();
    expect(text).not.toContain(TOKEN);
    const secured = list.find((c) => c.name === 'secured');
    expect(secured?.settings['bearer_token']).toEqual({ file: expect.any(String) as string });
    expect(Object.keys(secured?.settings['bearer_token'] as object)).toEqual(['file']);

    // Editing shows the reference, never the value, and keeps it unless changed.
    const row = page.getByRole('row', { name: /secured/ });
    await row.getByText(/✓ HTTP 200/).waitFor({ timeout: 20_000 });
    await row.getByRole('button', { name: 'Edit secured' }).click();
    const edit = page.getByRole('form', { name: 'Edit secured' });
    await edit.getByText(/Saved: from the file .*connector-secured-bearer_token/).waitFor();
    expect(await page.content()).not.toContain(TOKEN);
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved secured' }).waitFor();
    const again = (await connectors()).list.find((c) => c.name === 'secured');
    expect(again?.settings['bearer_token']).toEqual(secured?.settings['bearer_token']);
  });

  it("shows the server's message beside the url field for a bad url", async () => {
    const form = await startAdding('broken', 'not a url');
    await form.getByRole('button', { name: 'Save' }).click();
    const error = form.locator('#connection-settings-url-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('settings.url is not a valid absolute URL');
    const url = form.getByRole('textbox', { name: /^url/ });
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    await expect
      .poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'))
      .toBe('connection-settings-url');
    expect((await connectors()).list.map((c) => c.name).sort()).toEqual(['secured', 'web']);
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('deletes a connection after a confirmation', async () => {
    const row = page.getByRole('row', { name: /secured/ });
    await row.getByRole('button', { name: 'Delete secured' }).click();
    expect((await connectors()).list).toHaveLength(2);
    await row.getByRole('button', { name: 'Confirm delete secured' }).click();
    await until('secured removed', async () =>
      (await connectors()).list.some((c) => c.name === 'secured') ? undefined : true,
    );
    await page.getByRole('row', { name: /secured/ }).waitFor({ state: 'detached' });
  });
});
