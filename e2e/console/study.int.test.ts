// The Study page in a real Chromium against an in-process server on a real port, its
// prometheus connector talking to a stand-in whose answers are known: the admin starts a
// study, follows its progress and stops it before its next cause; a second study finishes
// and the page shows per service the normal ranges, the obstacles with their fixes, the
// relation with its way to the estate suggestions, and the causes readable or not. A viewer
// sees the start form disabled, naming the admin role. Nothing scrolls sideways on a phone.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import { prometheusStandIn, type Stub } from '../../server/testing/prometheus-stand-in.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  buildTestServer,
  personOn,
  type TestServer,
} from '../../server/testing/test-server.js';
import { openSignedIn, shoot, widthAtPhone } from './browser.js';

requireBundle();

let server: TestServer;
let prom: Stub;
let url = '';
let browser: Browser | undefined;
let page: Page;

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const inject = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => {
  const res = await server.app.inject({
    method,
    url: path,
    headers: asAdmin(),
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
  return res.json<Record<string, unknown>>();
};

beforeAll(async () => {
  prom = await prometheusStandIn();
  server = await buildTestServer({ delayMs: 0, study: { windowS: 600, stepS: 10 } });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  await inject('PUT', '/v1/connectors/prom', { kind: 'prometheus', settings: { url: prom.url } });
  await until('operating', async () => (await inject('GET', '/v1/status'))['mode'] === 'operating');
  await inject('POST', '/v1/discover', {});
  await until('the estate', async () => {
    const services = (await inject('GET', '/v1/estate'))['services'] as { name: string }[];
    return services.length >= 3;
  });
  ({ browser, page } = await openSignedIn(url, ADMIN_TOKEN, 'Study'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
  prom.server.close();
});

describe('the Study page', () => {
  it('starts a study, shows its progress and stops it before its next cause', async () => {
    await page.getByText('No study has run yet.').waitFor();
    prom.delayMs = 200;
    const form = page.getByRole('form', { name: 'start a study' });
    await form.getByLabel('Minutes (1 to 120)').fill('5');
    await form.getByRole('button', { name: 'Start study' }).click();
    const progress = page.getByLabel('study progress');
    await progress
      .filter({ hasText: /^reading causes: app · .+ — [1-9]\d* of \d+ causes read$/ })
      .waitFor();
    // While it runs, a second start is not offered.
    expect(await form.getByRole('button', { name: 'Start study' }).isDisabled()).toBe(true);
    await shoot(page, '96-study-running');
    await page.getByRole('button', { name: 'Stop study' }).click();
    await page
      .getByLabel('last study')
      .filter({ hasText: /^■ stopped/ })
      .waitFor();
    expect(await page.getByLabel('study of app').textContent()).toContain(
      'not every cause was read',
    );
    // Services it never reached are not written over (here: nothing learned of them yet).
    expect(await page.getByLabel('study of web').count()).toBe(0);
    prom.delayMs = 0;
  }, 60_000);

  it('shows what a finished study learned per service', async () => {
    const form = page.getByRole('form', { name: 'start a study' });
    await form.getByLabel('Minutes (1 to 120)').fill('1');
    await form.getByRole('button', { name: 'Start study' }).click();
    await page
      .getByLabel('last study')
      .filter({ hasText: /^✓ finished/ })
      .waitFor();
    const app = page.getByLabel('study of app');
    const cpu = app.getByRole('table', { name: 'baseline of app' }).getByRole('row').nth(2);
    // wave() gives 1..17 hundredths of a core: the normal range and all that was seen.
    expect(await cpu.textContent()).toMatch(
      /^CPU \(cores\)0\.0\d+–0\.1\d+0\.01–0\.17 \(61 points\)$/,
    );
    expect(await app.getByLabel('relations of app').textContent()).toContain(
      'postgresql → app: app cpu → postgresql cpu, app leads by 2 steps, strength 1 (lagged correlation)',
    );
    await app.getByRole('link', { name: /Estate page/ }).waitFor();
    expect(await app.getByLabel('obstacles of app').textContent()).toContain(
      '⚠ no ssh connector reaches app: add an ssh connector whose host is app-1',
    );
    expect(await app.getByLabel('causes of app').textContent()).toMatch(
      /^✓ \d+ of \d+ causes have checks that can be read; ✕ \d+ have none\.$/,
    );
    // Each cause shows when asked for: which checks read, and why the others did not.
    await app.getByLabel('causes of app').click();
    const down = app
      .getByRole('table', { name: 'cause checks of app' })
      .getByRole('row')
      .filter({ hasText: 'service_down' });
    expect(await down.textContent()).toContain('host.services: no ssh connector reaches app');
    const web = page.getByLabel('study of web');
    expect(await web.getByText('No reading of web over the window.').count()).toBe(1);
    expect(await web.getByLabel('obstacles of web').textContent()).toContain(
      '⚠ no exporter target for service web: add an exporter for it and a scrape target labelled service="web"',
    );
    await shoot(page, '97-study-results');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
    await app.getByRole('link', { name: /Estate page/ }).click();
    await page.getByRole('heading', { name: 'Estate', level: 1 }).waitFor();
  }, 60_000);

  it('a viewer sees the start form disabled, naming the admin role', async () => {
    const { token } = await personOn(server, 'vic@study.test', 'viewer');
    const viewer = await (browser as Browser).newPage({ viewport: { width: 1440, height: 900 } });
    await viewer.goto(`${url}/`);
    await viewer.evaluate(`localStorage.setItem('svc.session', ${JSON.stringify(token)})`);
    await viewer.goto(`${url}/study`);
    await viewer
      .getByRole('note')
      .filter({ hasText: 'Starting a study needs the admin role.' })
      .waitFor();
    const form = viewer.getByRole('form', { name: 'start a study' });
    expect(await form.getByLabel('Minutes (1 to 120)').isDisabled()).toBe(true);
    expect(await form.getByRole('button', { name: 'Start study' }).isDisabled()).toBe(true);
    // What the studies learned is the viewer's to read.
    await viewer.getByLabel('study of app').waitFor();
    await viewer.close();
  });
});
