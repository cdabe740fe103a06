// The console's live view in a real Chromium against the bundled service: it follows
// GET /v1/live/stream and asks GET /v1/live only when the seq moves (nothing while idle);
// an alert shows within a second; with the stream refused it polls GET /v1/live with
// If-None-Match and is answered 304 while nothing moves.
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Proc } from '../lab/processes.js';
import { startConsole, type ConsoleBench } from './browser.js';

const INGEST = 'lab-ingest-token-0123456789abcdef';

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;

beforeAll(async () => {
  bench = await startConsole({ SVC_INGEST_TOKEN: INGEST });
  ({ svc, browser } = bench);
}, 60_000);

afterAll(async () => {
  await bench?.stop();
});

/** A fresh browser context signed in on Live, and every request it makes from then on. */
async function signedIn(
  prepare?: (page: Page) => Promise<void>,
): Promise<{ page: Page; requests: Request[] }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  await prepare?.(page);
  const requests: Request[] = [];
  page.on('request', (r) => requests.push(r));
  await page.goto(`${svc.url}/live`);
  await page.getByLabel('Admin token').fill(svc.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: /Live/ }).waitFor();
  return { page, requests };
}

const liveGets = (requests: Request[]): Request[] =>
  requests.filter((r) => new URL(r.url()).pathname === '/v1/live');
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function alert(name: string, service: string): Promise<void> {
  const res = await fetch(`${svc.url}/v1/alerts/alertmanager`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      version: '4',
      status: 'firing',
      alerts: [
        {
          status: 'firing',
          fingerprint: `e2e-live-${name}`,
          labels: { alertname: name, service },
          annotations: { summary: name },
          startsAt: new Date().toISOString(),
        },
      ],
    }),
  });
  expect(res.status).toBe(202);
}

describe('the live view in Chromium', () => {
  it('follows the stream: no GET /v1/live while idle; an alert is on screen within a second', async () => {
    const { page, requests } = await signedIn();
    await page.getByText('Nothing is running').waitFor();
    await expect
      .poll(() => requests.filter((r) => r.url().endsWith('/v1/live/stream')).length)
      .toBeGreaterThanOrEqual(1);
    await wait(1000);
    const before = liveGets(requests).length;
    await wait(3000);
    // Polling every 500 ms would have made six.
    expect(liveGets(requests).length - before).toBe(0);

    await page.evaluate(`new MutationObserver((records, observer) => {
      if ([...document.querySelectorAll('td')].some((td) => td.textContent === 'ledgerd')) {
        window.shownAt = Date.now();
        observer.disconnect();
      }
    }).observe(document.body, { childList: true, subtree: true, characterData: true })`);
    const posted = Date.now();
    await alert('StreamLag', 'ledgerd');
    await page.getByRole('cell', { name: 'ledgerd' }).waitFor({ timeout: 10_000 });
    const shown = await page.evaluate<number | undefined>('window.shownAt');
    expect((shown ?? Infinity) - posted).toBeLessThan(1000);
    // The move was fetched, and only a few times (coalesced), not polled.
    expect(liveGets(requests).length - before).toBeGreaterThanOrEqual(1);
    expect(liveGets(requests).length - before).toBeLessThanOrEqual(4);
    await page.context().close();
  });

  it('polls with If-None-Match when the stream is refused, answered 304 while idle', async () => {
    const { page, requests } = await signedIn(async (p) => {
      await p.route('**/v1/live/stream', (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'too_many_streams', message: 'test' }),
        }),
      );
    });
    await wait(5000);
    const gets = liveGets(requests);
    // The first view, then one every 2 s.
    expect(gets.length).toBeGreaterThanOrEqual(3);
    const later = gets.slice(1);
    expect(later.every((r) => (r.headers()['if-none-match'] ?? '') !== '')).toBe(true);
    const statuses = await Promise.all(later.map(async (r) => (await r.response())?.status()));
    expect(statuses.filter((s) => s === 304).length).toBeGreaterThanOrEqual(later.length - 1);

    await alert('PollLag', 'pollerd');
    await page.getByRole('cell', { name: 'pollerd' }).waitFor({ timeout: 10_000 });
    await page.context().close();
  });
});
