// The Episodes page's second wave in a real Chromium against an in-process server with seeded
// episodes: a bad query keeps the last result (greyed), severity is a query field and a
// column, the query bar has `/` and autocomplete from the loaded facets, the scorecard names
// its window, denominators and formula and clicks through, Ctrl+K opens the command palette,
// and /incidents lists incidents with a status filter.
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../server/shared/clock.js';
import { seedEpisodes, type SeedEpisode } from '../../server/testing/episodes/episodes.js';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  buildTestServer,
  postAlert,
  type TestServer,
} from '../../server/testing/test-server.js';
import { launch, shoot, signInWithAdminToken, widthAtPhone } from './browser.js';

requireBundle();

const HOUR = 3_600_000;
const ago = (hours: number): string => new Date(Date.now() - hours * HOUR).toISOString();
const after = (iso: string, s: number): string =>
  new Date(Date.parse(iso) + s * 1000).toISOString();

/**
 * Two episodes the service's own verified action restored (critical), five whose alerts went
 * away on their own in shadow mode (nothing done), three shadow ones with a proven cause, one
 * handed over: minutes saved counts the first two only.
 */
const SEEDS: SeedEpisode[] = [
  ...[30, 40].map((h) => ({
    service: 'payments',
    t_open: ago(h),
    t_close: after(ago(h), 900),
    decision: 'act',
    outcome: 'mitigated',
    result: 'restored',
    action: 'verified',
    confidence: 'proven',
    kind: 'failure',
    confirmed: ['disk_full'],
    restore_s: 600,
    alerts: ['DiskFull'],
    severity: 'critical',
  })),
  ...[50, 51, 52, 53, 54].map((h) => ({
    service: 'checkout',
    t_open: ago(h),
    t_close: after(ago(h), 400),
    decision: 'settled',
    outcome: 'cleared',
    result: 'resolved',
    restore_s: 100,
    alerts: ['HighLatency'],
    severity: 'warning',
  })),
  ...[60, 61, 62].map((h) => ({
    service: 'search',
    t_open: ago(h),
    t_close: after(ago(h), 1200),
    decision: 'shadow',
    outcome: 'shadow',
    result: 'shadow',
    confidence: 'proven',
    kind: 'failure',
    confirmed: ['bad_deploy'],
    restore_s: 900,
    alerts: ['IndexLag'],
    severity: 'info',
  })),
  {
    service: 'ledgerd',
    t_open: ago(70),
    t_close: after(ago(70), 1500),
    decision: 'ask_human',
    outcome: 'escalated',
    result: 'handed_over',
    handover_s: 40,
    confidence: 'proven',
    kind: 'failure',
    confirmed: ['bad_deploy'],
    restore_s: 1400,
    alerts: ['WriteStall'],
    severity: 'high',
  },
];

let server: TestServer;
let url = '';
let browser: Browser | undefined;
let page: Page;
let ids: [string, string][] = [];

beforeAll(async () => {
  const clock = createFakeClock(ago(100));
  server = await buildTestServer({ clock, delayMs: 0 });
  ids = seedEpisodes({ ...server.runtime, clock }, SEEDS);
  clock.set(new Date().toISOString());
  // One incident still open: an alert firing now.
  expect((await postAlert(server, { name: 'QueueBacklog', service: 'billing' })).statusCode).toBe(
    202,
  );
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signInWithAdminToken(page, `${url}/episodes`, ADMIN_TOKEN);
  await page.getByRole('table', { name: 'closed episodes' }).waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

/** The texts of one column of the episodes table. */
async function column(name: string): Promise<string[]> {
  const table = page.getByRole('table', { name: 'closed episodes' });
  const headers = await table.locator('thead th').allTextContents();
  const index = headers.findIndex((h) => h.trim().startsWith(name));
  if (index < 0) return [];
  return table.locator(`tbody tr td:nth-child(${String(index + 1)})`).allTextContents();
}

async function open(path: string): Promise<void> {
  await page.goto(`${url}${path}`);
  await page.getByRole('heading', { name: /^Episodes/, level: 1 }).waitFor();
  await page.getByRole('table', { name: 'closed episodes' }).waitFor();
}

/** Whether the element has the focus (evaluated in the page: e2e has no DOM types). */
const focused = (l: Locator): Promise<boolean> =>
  l.evaluate(
    (el: { ownerDocument: { activeElement: unknown } }) => el === el.ownerDocument.activeElement,
  );

const queryBar = () => page.getByRole('combobox', { name: 'Query' });

describe('the episodes page', () => {
  it('keeps the last valid result, greyed, while the query is bad', async () => {
    await open('/episodes?query=service:payments');
    await expect.poll(() => column('Service')).toEqual(['payments', 'payments']);
    await queryBar().fill('service:payments decision:nonsense');
    await queryBar().press('Enter');
    const error = page.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toContain('nonsense');
    // The scorecard, facets and table stay, marked stale.
    expect(await column('Service')).toEqual(['payments', 'payments']);
    await page.getByRole('region', { name: 'scorecard' }).waitFor();
    await page.getByRole('complementary', { name: 'facets' }).waitFor();
    const results = page.locator('[data-stale]');
    expect(await results.getAttribute('aria-disabled')).toBe('true');
    await shoot(page, '130-episodes-bad-query');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
    // A good query again: no longer stale.
    await queryBar().fill('service:checkout');
    await queryBar().press('Enter');
    await expect.poll(() => column('Service')).toHaveLength(5);
    expect(await page.locator('[aria-disabled="true"][data-stale]').count()).toBe(0);
  });

  it('filters by severity, and shows it as glyph, word and colour', async () => {
    const fields = await server.app.inject({
      method: 'GET',
      url: '/v1/search/fields',
      headers: asAdmin(),
    });
    const episodeFields = fields.json<{ episodes: { fields: { name: string }[] } }>().episodes;
    expect(episodeFields.fields.map((f) => f.name)).toContain('severity');
    await open('/episodes?query=severity:critical');
    await expect.poll(() => column('Service')).toEqual(['payments', 'payments']);
    expect(await column('Severity')).toEqual(['▲ critical', '▲ critical']);
    await open('/episodes?query=-severity:critical -severity:warning');
    await expect.poll(() => column('Service')).toHaveLength(4);
    expect(new Set(await column('Severity'))).toEqual(new Set(['◌ info', '◆ high']));
    await shoot(page, '131-episodes-severity');
  });

  it('focuses the query bar on /, and completes fields and values from the loaded facets', async () => {
    await open('/episodes');
    const requests: Request[] = [];
    page.on('request', (r) => requests.push(r));
    // `/` typed into another input stays there.
    const text = page.getByRole('textbox', { name: 'Text' });
    await text.click();
    await page.keyboard.type('a/b');
    expect(await text.inputValue()).toBe('a/b');
    await text.fill('');
    await page.getByRole('heading', { name: /^Episodes/, level: 1 }).click();
    await page.keyboard.press('/');
    await expect.poll(() => focused(queryBar())).toBe(true);
    expect(await queryBar().inputValue()).toBe('');

    await page.keyboard.type('serv');
    const list = page.getByRole('listbox', { name: 'suggestions' });
    await list.waitFor();
    expect(await queryBar().getAttribute('aria-expanded')).toBe('true');
    const first = list.getByRole('option').first();
    expect(await first.textContent()).toContain('service:');
    expect(await first.getAttribute('aria-selected')).toBe('true');
    expect(await queryBar().getAttribute('aria-activedescendant')).toBe(
      await first.getAttribute('id'),
    );
    await page.keyboard.press('Enter');
    expect(await queryBar().inputValue()).toBe('service:');

    // Values come from the facet counts, substring matched, with their counts.
    await page.keyboard.type('ec');
    const options = list.getByRole('option');
    await expect.poll(() => options.allTextContents()).toEqual(['checkout (5)']);
    await shoot(page, '132-query-autocomplete');
    await page.keyboard.press('Enter');
    expect(await queryBar().inputValue()).toBe('service:checkout ');
    // Arrow keys move the choice; Escape closes the list.
    await page.keyboard.type('res');
    await list.waitFor();
    const count = await options.count();
    expect(count).toBeGreaterThan(1);
    expect(count).toBeLessThanOrEqual(10);
    await page.keyboard.press('ArrowDown');
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'hidden' });
    expect(await queryBar().getAttribute('aria-expanded')).toBe('false');
    // No list request per keystroke: typing asked nothing of /v1/episodes.
    expect(requests.filter((r) => new URL(r.url()).pathname === '/v1/episodes')).toHaveLength(0);
  });

  it('goes through the list one episode at a time with [ and ], in the order shown', async () => {
    await open('/episodes?sort=-t_open');
    const ids = await column('Episode');
    expect(ids.length).toBeGreaterThan(2);
    await page
      .getByRole('table', { name: 'closed episodes' })
      .getByRole('link', { name: ids[0] ?? '' })
      .click();
    const bar = page.getByRole('navigation', { name: 'the list' });
    await bar.getByText(`1 of ${String(ids.length)} in the list`).waitFor();
    expect(await bar.getByRole('link', { name: '← Episodes' }).getAttribute('href')).toBe(
      '/episodes?sort=-t_open',
    );
    await page.getByRole('heading', { level: 1 }).click();
    await page.keyboard.press(']');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/episodes/${ids[1] ?? ''}`);
    await bar.getByText(`2 of ${String(ids.length)} in the list`).waitFor();
    await page.keyboard.press('[');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/episodes/${ids[0] ?? ''}`);
    // The first has no previous: [ stays.
    await page.keyboard.press('[');
    await bar.getByText('first').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/episodes/${ids[0] ?? ''}`);
  });

  it('moves with j and k, ticks with x and Shift+x, exports the ticked rows, peeks with Space', async () => {
    await open('/episodes?sort=-t_open');
    const ids = await column('Episode');
    expect(ids.length).toBeGreaterThan(3);
    // Nothing unfilled reaches the page (the facets once badged every value "×NaN vs rest").
    expect(await page.locator('main').textContent()).not.toMatch(
      /\bNaN\b|\bundefined\b|\[object Object\]/,
    );
    const table = page.getByRole('table', { name: 'closed episodes' });
    const focusedId = (): Promise<string | null> =>
      page.evaluate<string | null>(
        `document.activeElement?.closest('tr[data-episode]')?.getAttribute('data-episode') ?? null`,
      );
    await page.getByRole('heading', { name: /^Episodes/, level: 1 }).click();
    await page.keyboard.press('j');
    expect(await focusedId()).toBe(ids[0]);
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await focusedId()).toBe(ids[2]);
    await page.keyboard.press('k');
    await page.keyboard.press('j');
    // Shift+x: everything from the last ticked row to this one.
    await page.keyboard.press('Shift+X');
    const ticked = table.locator('tbody tr.ticked');
    await expect.poll(() => ticked.count()).toBe(3);
    const bar = page.getByRole('group', { name: 'ticked episodes' });
    await bar.getByText('3 ticked').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      bar.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^episodes-.*\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(csv[0]?.startsWith('episode_id,t_open,')).toBe(true);
    expect(csv.slice(1, -1).map((l) => l.split(',')[0])).toEqual(ids.slice(0, 3));
    // One verdict for the three: "other" needs its detail first; each is recorded in turn.
    const verdict = page.getByRole('form', { name: 'Verdict for the ticked episodes' });
    await verdict.getByLabel('Verdict').selectOption('other');
    const record = verdict.getByRole('button', { name: 'Record for 3' });
    expect(await record.isDisabled()).toBe(true);
    await verdict.getByLabel('What the team did instead').fill('restarted the pods by hand');
    await shoot(page, '144-episodes-ticked');
    await record.click();
    await verdict.getByText('Recorded for 3 of 3.').waitFor();
    await expect
      .poll(() => column('Verdict'))
      .toEqual(['other', 'other', 'other', ...Array.from({ length: ids.length - 3 }, () => '—')]);

    // Space peeks at the focused row; j moves the peek along; Esc puts it away.
    await page.keyboard.press('j');
    expect(await focusedId()).toBe(ids[0]);
    await page.keyboard.press(' ');
    const peek = page.getByRole('complementary', { name: `Peek at ${ids[0] ?? ''}` });
    await peek.waitFor();
    expect(await peek.getByRole('link', { name: `Open ${ids[0] ?? ''} →` }).isVisible()).toBe(true);
    await page.keyboard.press('j');
    await page.getByRole('complementary', { name: `Peek at ${ids[1] ?? ''}` }).waitFor();
    await shoot(page, '145-episodes-peek', { fullPage: false });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.episode-peek').count()).toBe(0);
    expect(await focusedId()).toBe(ids[1]);
    // Enter opens the focused row.
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/episodes/${ids[1] ?? ''}`);
  });

  it('names each tile’s window and denominator, explains minutes saved, and clicks through', async () => {
    await open('/episodes?range=30d');
    const card = page.getByRole('region', { name: 'scorecard' });
    expect(await card.textContent()).toContain('last 30 days');
    // No impact figures: never a 0, a link to set them.
    const saved = card.getByRole('group', { name: /minutes saved/ });
    expect(await saved.textContent()).toContain('— set impact figures');
    expect(await saved.getByRole('link', { name: /set impact figures/ }).getAttribute('href')).toBe(
      '/settings#impact',
    );
    await shoot(page, '133-scorecard-no-figures');

    const put = await server.app.inject({
      method: 'PUT',
      url: '/v1/impact',
      headers: asAdmin(),
      payload: {
        currency: 'EUR',
        engineer_hour: 0,
        triage_min: 10,
        fix_min: 20,
        manual_resolve_min: 0,
        downtime_hour: 0,
        callout: 0,
        annual_cost: 0,
      },
    });
    expect(put.statusCode).toBe(200);
    await open('/episodes?range=30d&service=payments,checkout,search,ledgerd');
    expect(await card.textContent()).toContain('last 30 days, filtered');
    // Two episodes the service's own action restored, × (10 + 20): the settled and shadow
    // ones did nothing.
    await expect.poll(() => saved.locator('.value').textContent()).toBe('60');
    await saved.getByRole('button', { name: /how minutes saved are counted/ }).click();
    const formula = page.getByRole('note', { name: 'minutes saved formula' });
    expect(await formula.textContent()).toContain('(10 min triage + 20 min fix) × 2');
    expect(await formula.getByRole('link', { name: /impact figures/ }).getAttribute('href')).toBe(
      '/settings#impact',
    );
    // Denominators: of the episodes in scope.
    const ended = card.getByRole('group', { name: /ended by the service/ });
    expect(await ended.textContent()).toMatch(/of 11/);
    await shoot(page, '134-scorecard');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);

    // Click-through: a tile filters the table.
    await card.getByRole('link', { name: /2 verified/ }).click();
    await expect.poll(() => page.url()).toMatch(/query=action%3Averified|query=action:verified/);
    await expect.poll(() => column('Service')).toEqual(['payments', 'payments']);
  });

  it('opens the impact figures from the link', async () => {
    await open('/episodes');
    const card = page.getByRole('region', { name: 'scorecard' });
    await card.getByRole('button', { name: /how minutes saved are counted/ }).click();
    await card.getByRole('link', { name: /impact figures/ }).click();
    await page.getByRole('heading', { name: 'Impact figures' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
  });
});

describe('the command palette', () => {
  const palette = () => page.getByRole('dialog', { name: 'Command palette' });
  const input = () => palette().getByRole('combobox');

  it('opens with Ctrl+K anywhere and goes to a page', async () => {
    await page.goto(`${url}/live`);
    await page.getByRole('heading', { name: /Live/, level: 1 }).waitFor();
    await page.keyboard.press('Control+k');
    await palette().waitFor();
    expect(await focused(input())).toBe(true);
    await page.keyboard.type('incid');
    const first = palette().getByRole('option').first();
    await expect.poll(() => first.textContent()).toContain('Incidents');
    expect(await first.getAttribute('aria-selected')).toBe('true');
    await shoot(page, '135-palette');
    await page.keyboard.press('Enter');
    await palette().waitFor({ state: 'hidden' });
    await expect.poll(() => new URL(page.url()).pathname).toBe('/incidents');
  });

  it('finds an episode by id on the server', async () => {
    const [episode] = ids[0]!;
    await page.keyboard.press('Control+k');
    await palette().waitFor();
    await page.keyboard.type(episode.slice(-8));
    const option = palette().getByRole('option', { name: new RegExp(episode) });
    await option.waitFor();
    await option.click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/episodes/${episode}`);
  });

  it('opens the halt control for "Halt all", and halts nothing by itself', async () => {
    await page.keyboard.press('Control+k');
    await palette().waitFor();
    await page.keyboard.type('halt');
    await expect
      .poll(() => palette().getByRole('option').first().textContent())
      .toContain('Halt all actions');
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Halt all actions' });
    await form.waitFor();
    await expect.poll(() => focused(form.getByLabel(/Reason for halting/))).toBe(true);
    await shoot(page, '136-palette-halt');
    const autonomy = await server.app.inject({
      method: 'GET',
      url: '/v1/autonomy',
      headers: asAdmin(),
    });
    expect(autonomy.json<{ halted: unknown }>().halted).toBeNull();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'hidden' });
  });
});

describe('the incidents page', () => {
  it('lists incidents with status, services, episodes and opened, filtered by status', async () => {
    await page.goto(`${url}/live`);
    await page.getByRole('link', { name: 'Incidents', exact: true }).click();
    await page.getByRole('heading', { name: 'Incidents', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'incidents' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(SEEDS.length + 1);
    const billing = table.getByRole('row', { name: /billing/ });
    expect(await billing.textContent()).toContain('open');
    await shoot(page, '137-incidents');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);

    // The filter is the API's: none is resolved yet (seeded incidents stay open).
    await page.getByRole('checkbox', { name: 'resolved' }).check();
    await expect.poll(() => page.url()).toMatch(/status=resolved/);
    await page.getByText('No incident is resolved').waitFor();
    await page.getByRole('checkbox', { name: 'resolved' }).uncheck();
    await page.getByRole('checkbox', { name: 'open' }).check();
    await expect.poll(() => page.url()).toMatch(/status=open$/);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(SEEDS.length + 1);
    await billing.getByRole('link', { name: /^in-/ }).click();
    await page.getByRole('heading', { name: /Incident/, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/incidents\/in-/);
  });
});
