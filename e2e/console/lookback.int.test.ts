// The Lookback page in a real Chromium against an in-process server on a real port, with
// PagerDuty and ServiceNow connections to a local server that answers with the vendors'
// recorded exchanges: first no connection keeps history (a message that links to the
// Connections page), then a count over 90 days with ServiceNow's refusal shown beside
// PagerDuty's count. At 1440 px and 390 px nothing scrolls sideways.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recorded, replayServer, type Replay } from '../../server/testing/history-replay.js';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  buildTestServer,
  type TestServer,
} from '../../server/testing/test-server.js';
import { openSignedIn, shoot, widthAtPhone } from './browser.js';

requireBundle();

const pd = recorded('pagerduty').exchanges;
const sn = recorded('servicenow').exchanges;
let server: TestServer;
let vendor: Replay;
let url = '';
let browser: Browser | undefined;
let page: Page;

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  vendor = await replayServer();
  vendor.answer((req) => {
    if (req.path === '/abilities') return pd['abilities']!.response;
    if (req.path === '/incidents') return pd['incidents_total']!.response;
    if (req.path === '/api/now/table/incident') return sn['table']!.response;
    if (req.path === '/api/now/stats/incident') return sn['unauthorized']!.response;
    return { status: 404, body: {} };
  });
  server = await buildTestServer({ delayMs: 0 });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  ({ browser, page } = await openSignedIn(url, ADMIN_TOKEN, 'Lookback'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
  await vendor.close();
});

describe('the Lookback page', () => {
  it('says when no connection keeps history, with a link to the Connections page', async () => {
    const note = page.getByRole('status').filter({ hasText: 'No connection keeps history yet' });
    await note.waitFor();
    expect(await note.textContent()).toMatch(
      /Jira Service Management, Opsgenie, PagerDuty or ServiceNow connection/,
    );
    expect(await page.getByRole('button', { name: 'Count resolved incidents' }).count()).toBe(0);
    await shoot(page, '98-lookback-none');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
    await note.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/connections$/);
  });

  it('counts over the days asked, per connection, a refusal shown beside the count', async () => {
    for (const [name, doc] of [
      ['pd', { kind: 'pagerduty', settings: { url: vendor.url, api_token: { value: 'pd-tok' } } }],
      [
        'snow',
        {
          kind: 'servicenow',
          settings: { url: vendor.url, user: 'lookback', password: { value: 'sn-pass' } },
        },
      ],
    ] as const) {
      const res = await server.app.inject({
        method: 'PUT',
        url: `/v1/connectors/${name}`,
        headers: asAdmin(),
        payload: doc,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await eventually(async () => server.status.mode() === 'operating');

    await page.getByRole('link', { name: 'Lookback' }).click();
    const list = page.getByRole('list', { name: 'connections that keep history' });
    await list.waitFor();
    expect(await list.getByRole('listitem').count()).toBe(2);
    expect(await page.getByText('Nothing counted yet').count()).toBe(1);

    await page.getByLabel('Days back').fill('90');
    await page.getByRole('button', { name: 'Count resolved incidents' }).click();
    const figures = page.getByLabel('lookback figures');
    await figures.waitFor();
    expect(await figures.textContent()).toContain('Resolved incidents27');
    expect(await figures.textContent()).toContain('without 1 connection that could not be read');
    expect(await page.getByRole('heading', { name: 'Last 90 days' }).count()).toBe(1);
    const rows = page
      .getByRole('table', { name: 'resolved incidents per connection' })
      .getByRole('row');
    const texts = await rows.allTextContents();
    expect(texts[1]).toMatch(/^pd \(PagerDuty\)27GET \/incidents/);
    expect(texts[2]).toMatch(
      /^snow \(ServiceNow\)—✕ connector snow: ServiceNow refused the credential \(HTTP 401\)/,
    );
    await shoot(page, '99-lookback-report');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
  });
});
