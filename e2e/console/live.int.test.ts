// The console's live view in a real Chromium against the bundled service: it follows
// GET /v1/live/stream and asks GET /v1/live only when the seq moves (nothing while idle);
// an alert shows within a second; with the stream refused it polls GET /v1/live with
// If-None-Match and is answered 304 while nothing moves. A running episode's page follows its
// newest timeline rows only from the newest end (`f`), counting in a pill what arrives while
// the reader is elsewhere, and keeps its head in view under the top bar.
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Proc } from '../lab/processes.js';
import { callAs, resize, shoot, startConsole, type ConsoleBench } from './browser.js';

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

describe('a running episode in Chromium', () => {
  /** The newest row's box against the viewport, and the page's scroll. */
  const newestRow = (page: Page) =>
    page.evaluate<{
      top: number;
      bottom: number;
      seq: string;
      scrollY: number;
      height: number;
    }>(`(() => {
      const row = document.querySelector('.timeline')?.lastElementChild;
      const box = row?.getBoundingClientRect();
      return { top: box?.top ?? -1, bottom: box?.bottom ?? -1, seq: row?.getAttribute('data-seq') ?? '',
        scrollY: window.scrollY, height: window.innerHeight };
    })()`);
  const inView = (r: { top: number; bottom: number; height: number }) =>
    r.bottom > 0 && r.top < r.height;

  it('follows the newest rows only from the newest end; elsewhere a pill counts them; f jumps and follows', async () => {
    for (let i = 0; i < 24; i += 1) await alert(`Follow${String(i)}`, 'followd');
    const live = await callAs<{ running: { episode_id: string; service: string }[] }>(
      svc.url,
      svc.adminToken,
      'GET',
      '/v1/live',
    );
    const id = live.body.running.find((r) => r.service === 'followd')?.episode_id ?? '';
    expect(id).toMatch(/^ep-/);
    const { page } = await signedIn();
    await resize(page, { width: 1440, height: 700 });
    await page.goto(`${svc.url}/episodes/${id}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.getByRole('button', { name: /Follow the newest/ }).waitFor();

    // At the top, away from the newest end: a new row moves nothing and is counted.
    await page.evaluate('window.scrollTo(0, 0)');
    const rowsBefore = await page.locator('.timeline > li').count();
    await alert('FollowLate1', 'followd');
    const pill = page.getByRole('button', { name: /new below · show/ });
    await pill.waitFor({ timeout: 10_000 });
    expect(await page.locator('.timeline > li').count()).toBeGreaterThan(rowsBefore);
    expect((await newestRow(page)).scrollY).toBe(0);
    await shoot(page, '170-episode-new-below', { fullPage: false });

    // f: to the newest row, following; the next row is brought into view as it arrives.
    await page.keyboard.press('f');
    await expect.poll(async () => inView(await newestRow(page))).toBe(true);
    await expect.poll(() => pill.count()).toBe(0);
    await page.getByRole('button', { name: /Following the newest/ }).waitFor();
    const followedSeq = (await newestRow(page)).seq;
    await alert('FollowLate2', 'followd');
    await expect.poll(async () => (await newestRow(page)).seq).not.toBe(followedSeq);
    await expect.poll(async () => inView(await newestRow(page))).toBe(true);
    expect(await pill.count()).toBe(0);

    // The head stays under the top bar at the bottom of a long page.
    const head = await page.evaluate<{ top: number; bar: number }>(`(() => ({
      top: document.querySelector('.episode-head').getBoundingClientRect().top,
      bar: document.querySelector('.topbar').getBoundingClientRect().height }))()`);
    expect(Math.abs(head.top - head.bar)).toBeLessThanOrEqual(1);
    await page.getByRole('heading', { name: /followd/, level: 1 }).waitFor();
    expect(await page.getByRole('heading', { name: /followd/, level: 1 }).isVisible()).toBe(true);
    await shoot(page, '171-episode-following', { fullPage: false });
    await page.context().close();
  });
});
