// The console in a real Chromium against the bundled service with real data: sign in, see an
// alert appear on Live without a reload, filter episodes by facet and by query (a bad query
// explained inline), open an episode, verify the ledger. Screenshots of each page land in
// e2e/screenshots.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEpisodes, type SeedEpisode } from '../../server/testing/episodes/episodes.js';
import { createFakeClock } from '../../server/shared/clock.js';
import { buildTestServer } from '../../server/testing/test-server.js';
import { type Proc } from '../lab/processes.js';
import { SCREENSHOTS, shoot, startConsole, type ConsoleBench } from './browser.js';

const INGEST = 'lab-ingest-token-0123456789abcdef';
/** Runs in the page (as text: e2e has no DOM types): note when a `billing` cell appears. */
const WATCH_FOR_BILLING = `new MutationObserver((records, observer) => {
  if ([...document.querySelectorAll('td')].some((td) => td.textContent === 'billing')) {
    window.shownAt = Date.now();
    observer.disconnect();
  }
}).observe(document.body, { childList: true, subtree: true, characterData: true })`;
const day = (d: number, h: number): string => new Date(Date.UTC(2026, 10, d, h)).toISOString();
const later = (iso: string, s: number): string =>
  new Date(Date.parse(iso) + s * 1000).toISOString();

// Closed episodes need a closing: they are written through the ledger before the service starts.
const SEEDS: SeedEpisode[] = [
  ...[1, 3, 5, 7].map((h) => ({
    service: 'payments',
    t_open: day(18, h),
    t_close: later(day(18, h), 900),
    decision: 'act',
    outcome: 'mitigated',
    result: 'restored',
    action: 'verified',
    confidence: 'proven',
    kind: 'failure',
    confirmed: ['disk_full'],
    restore_s: 600,
    alerts: ['DiskFull'],
  })),
  ...[2, 4, 6].map((h) => ({
    service: 'checkout',
    t_open: day(19, h),
    t_close: later(day(19, h), 400),
    restore_s: 100,
    alerts: ['HighLatency'],
  })),
  {
    service: 'search',
    t_open: day(20, 9),
    t_close: later(day(20, 9), 1200),
    decision: 'ask_human',
    outcome: 'escalated',
    result: 'handed_over',
    handover_s: 40,
    alerts: ['IndexLag'],
  },
];

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
let page: Page;
const timings: Record<string, number> = {};

beforeAll(async () => {
  bench = await startConsole(
    { SVC_INGEST_TOKEN: INGEST },
    {
      prepare: async (dir) => {
        const clock = createFakeClock(day(18, 0));
        const seeder = await buildTestServer({ dir, clock });
        seedEpisodes({ ...seeder.runtime, clock }, SEEDS);
        await seeder.stop();
      },
    },
  );
  ({ svc, browser } = bench);
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
}, 60_000);

afterAll(async () => {
  writeFileSync(join(SCREENSHOTS, 'timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
  await bench?.stop();
});

async function alert(status: 'firing' | 'resolved'): Promise<void> {
  const res = await fetch(`${svc.url}/v1/alerts/alertmanager`, {
    method: 'POST',
    headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      version: '4',
      status,
      alerts: [
        {
          status,
          fingerprint: 'e2e-console-1',
          labels: { alertname: 'QueueBacklog', service: 'billing' },
          annotations: { summary: 'the queue is growing' },
          startsAt: new Date().toISOString(),
        },
      ],
    }),
  });
  expect(res.status).toBe(202);
}

describe('the console in Chromium', () => {
  it('signs in with the admin token and lands on Live', async () => {
    await page.goto(`${svc.url}/live`);
    await page.getByLabel('Admin token').fill(svc.adminToken);
    await shoot(page, '01-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Live/ }).waitFor();
    expect(page.url()).toMatch(/\/live$/);
    await page.getByText('Nothing is running').waitFor();
    await shoot(page, '02-live-empty');
  });

  it('shows an alert on Live without a reload', async () => {
    // The page notes when the row appears (a MutationObserver, on the same wall clock as this
    // process), so the figure is not rounded up by the locator's polling.
    await page.evaluate(WATCH_FOR_BILLING);
    const started = Date.now();
    await alert('firing');
    const acknowledged = Date.now();
    await page.getByRole('cell', { name: 'billing' }).waitFor({ timeout: 10_000 });
    const shown = await page.evaluate<number | undefined>('window.shownAt');
    expect(typeof shown).toBe('number');
    // Recorded, not asserted: docs/performance.md reports it.
    timings['live_after_202_ms'] = (shown ?? 0) - acknowledged;
    timings['live_after_post_ms'] = (shown ?? 0) - started;
    await expect(page.getByRole('cell', { name: 'QueueBacklog' }).count()).resolves.toBe(1);
    await shoot(page, '03-live-running');
  });

  it('filters episodes by a facet', async () => {
    await page.getByRole('link', { name: 'Episodes' }).click();
    await page.getByRole('table', { name: 'closed episodes' }).waitFor();
    await shoot(page, '04-episodes');
    const facet = page.getByRole('group', { name: 'service' });
    await facet.getByRole('checkbox', { name: /payments/ }).check();
    await expect.poll(() => page.url()).toMatch(/service=payments/);
    await expect
      .poll(() => rowsOf('Service'))
      .toEqual(['payments', 'payments', 'payments', 'payments']);
    await shoot(page, '05-episodes-facet');
    await page.getByLabel('one row per incident').check();
    await expect.poll(() => page.url()).toMatch(/group=incident/);
    await page.getByRole('columnheader', { name: 'Related' }).waitFor();
  });

  it('filters episodes by a query, and explains a bad one inline', async () => {
    await page.goto(`${svc.url}/episodes`);
    const bar = page.getByRole('search').getByPlaceholder(/query/);
    await bar.fill('decision:ask_human');
    await bar.press('Enter');
    await expect.poll(() => page.url()).toMatch(/query=decision/);
    await expect.poll(() => rowsOf('Service')).toEqual(['search']);
    await bar.fill('decision:nonsense');
    await bar.press('Enter');
    const error = page.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toContain('nonsense');
    await shoot(page, '06-episodes-bad-query');
  });

  it('opens an episode', async () => {
    await page.goto(`${svc.url}/episodes?service=search`);
    await page.getByRole('link', { name: /^ep-/ }).first().click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await page.getByText('episode.closed').count()).toBeGreaterThan(0);
    await shoot(page, '07-episode');
    // The header's incident link (the timeline links it too).
    await page.getByRole('link', { name: /^in-/ }).first().click();
    await page.getByRole('heading', { name: /Incident/ }).waitFor();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    expect(
      await page.getByRole('table', { name: 'episodes of the incident' }).textContent(),
    ).toContain('search');
    await shoot(page, '07b-incident');
  });

  it('verifies the ledger from the audit page', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('table', { name: 'ledger events' }).waitFor();
    await page.getByRole('button', { name: 'Verify the ledger' }).click();
    const result = page.locator('[data-verify]');
    await result.waitFor();
    expect(await result.textContent()).toContain('Verified');
    await shoot(page, '08-audit-verified');

    const headSeq = async (): Promise<number> =>
      (
        (await (
          await fetch(`${svc.url}/v1/ledger?limit=1`, {
            headers: { authorization: `Bearer ${svc.adminToken}` },
          })
        ).json()) as { head: { seq: number } }
      ).head.seq;
    const before = await headSeq();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /Export/ }).click(),
    ]);
    const lines = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\n');
    const seqs = lines.map((l) => (JSON.parse(l) as { seq: number }).seq);
    // Every event from the first, none twice, none skipped, up to at least the head at the click.
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(seqs.length).toBeGreaterThanOrEqual(before);
    expect(seqs.length).toBeLessThanOrEqual(await headSeq());
  });

  it('shows the firing alert on the wall display', async () => {
    await page.goto(`${svc.url}/wall`);
    await page.getByText('▲ 1 firing').waitFor();
    expect(await page.getByText('QueueBacklog').count()).toBe(1);
    await shoot(page, '08b-wall');
  });

  it('shows status, set-up and doctor', async () => {
    // The wall display has no navigation: back to a page that has it.
    await page.goto(`${svc.url}/live`);
    await page.getByRole('link', { name: 'Status' }).click();
    await page.getByRole('heading', { name: 'Doctor' }).waitFor();
    await page
      .getByRole('table', { name: /^doctor checks: / })
      .first()
      .getByRole('row')
      .first()
      .waitFor();
    await shoot(page, '09-status');
  });
});

/** The texts of one column of the episodes table. */
async function rowsOf(column: string): Promise<string[]> {
  const table = page.getByRole('table', { name: 'closed episodes' });
  const headers = await table.locator('thead th').allTextContents();
  const index = headers.findIndex((h) => h.trim().startsWith(column));
  return table.locator(`tbody tr td:nth-child(${String(index + 1)})`).allTextContents();
}
