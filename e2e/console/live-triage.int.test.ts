// Live for triage in a real Chromium against an in-process server (issue 22, items 1, 3 and
// 8): severity as glyph, word and colour; the brief's attention buckets (an approval awaited,
// a failed action, an unsure hypothesis), then worst and newest first; grouping, filter and search
// kept in the URL; pause and "N new · show" so that nothing moves under the reader; new rows
// highlighted and announced; dense rows; the phone; and the idle traffic of an open tab.
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import {
  ADMIN_TOKEN,
  buildTestServer,
  postAlert,
  type TestServer,
} from '../../server/testing/test-server.js';
import { launch, resize, shoot, signInWithAdminToken } from './browser.js';

requireBundle();

let server: TestServer;
let url = '';
let browser: Browser | undefined;

beforeAll(async () => {
  server = await buildTestServer({ delayMs: 0 });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

/** A new tab signed in on Live (at `path`, default /live). */
async function livePage(viewport = { width: 1440, height: 900 }, path = '/live'): Promise<Page> {
  if (browser === undefined) throw new Error('no browser');
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await signInWithAdminToken(page, `${url}${path}`, ADMIN_TOKEN);
  await page.getByRole('heading', { name: /Live/, level: 1 }).waitFor();
  return page;
}

async function fire(name: string, service: string, severity?: string): Promise<void> {
  const res = await postAlert(server, {
    name,
    service,
    fingerprint: `triage-${service}-${name}`,
    ...(severity !== undefined && { labels: { severity } }),
  });
  expect(res.statusCode, res.body).toBe(202);
}

const table = (page: Page) => page.getByRole('table', { name: 'running episodes' });

/** The services of the rows shown, top to bottom. */
const services = (page: Page): Promise<string[]> =>
  table(page).locator('tbody tr[data-episode] td.service').allTextContents();

const rowOf = (page: Page, service: string) =>
  table(page)
    .locator('tbody tr[data-episode]')
    .filter({
      has: page.locator('td.service', { hasText: new RegExp(`^${service}$`) }),
    });

/** WCAG contrast of each severity mark against the background it is drawn on. */
const CONTRASTS = `(() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return [...document.querySelectorAll('table[aria-label="running episodes"] .sev')].map((el) => {
    const a = lum(rgb(getComputedStyle(el).color).slice(0, 3));
    const b = lum(background(el));
    return { text: el.textContent, color: getComputedStyle(el).color,
      ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
  });
})()`;

describe('Live for triage', () => {
  it('marks every row with glyph, word and colour, worst first then newest first', async () => {
    await fire('DiskFilling', 'svc-a', 'warning');
    await fire('Down', 'svc-b', 'critical');
    await fire('Chatty', 'svc-c', 'info');
    await fire('Plain', 'svc-d');
    await fire('Slow', 'svc-e', 'high');
    await fire('Crashing', 'svc-f', 'critical');
    const page = await livePage();
    await expect
      .poll(() => services(page), { timeout: 15_000 })
      .toEqual(['svc-f', 'svc-b', 'svc-e', 'svc-a', 'svc-c', 'svc-d']);
    const marks = await table(page).locator('tbody tr[data-episode] .sev').allTextContents();
    expect(marks.map((m) => m.trim())).toEqual([
      '▲ critical',
      '▲ critical',
      '◆ high',
      '● warning',
      '◌ info',
      '– unknown',
    ]);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const seen = await page.evaluate<{ text: string; color: string; ratio: number }[]>(CONTRASTS);
      for (const s of seen) expect(s.ratio, `${scheme} ${s.text}`).toBeGreaterThanOrEqual(4.5);
      // Five severities, five colours.
      expect(new Set(seen.map((s) => s.color)).size, scheme).toBe(5);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await shoot(page, '110-live-severity');
    await page.context().close();
  });

  it('puts a row waiting for an approval first, with the quorum, the expiry and a link to it', async () => {
    const live = await server.app.inject({
      method: 'GET',
      url: '/v1/live',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const chatty = live
      .json<{ running: { service: string; episode_id: string }[] }>()
      .running.find((r) => r.service === 'svc-c');
    if (chatty === undefined) throw new Error('svc-c is not running');
    const request = await server.acting.approvals.open({
      kind: 'action',
      title: 'Restart chatty',
      summary: 'the info alert asks for a restart',
      service: 'svc-c',
      risk: 'medium',
      episode_id: chatty.episode_id,
      subject: { pack: 'e2e', fix: 'restart', connector: 'none', op: 'restart', args: {} },
      quorum: 2,
      approver_role: 'responder',
      requested_by: 'system',
      ttl_s: 3600,
    });
    const page = await livePage();
    // Info, yet first: a person can unblock it now.
    await expect
      .poll(() => services(page), { timeout: 15_000 })
      .toEqual(['svc-c', 'svc-f', 'svc-b', 'svc-e', 'svc-a', 'svc-d']);
    const link = rowOf(page, 'svc-c').getByRole('link', { name: /awaiting approval/ });
    expect(await link.textContent()).toMatch(/0 of 2 approvals · expires in (1 h 0 min|59 min)$/);
    expect(await link.getAttribute('href')).toBe(`/approvals?sel=${request.request_id}`);
    // On a phone, without the status column, it shows under the alert.
    await resize(page, { width: 390, height: 844 });
    const underAlert = rowOf(page, 'svc-c')
      .locator('td.alerts')
      .getByRole('link', { name: /awaiting approval/ });
    expect(await underAlert.isVisible()).toBe(true);
    await resize(page, { width: 1440, height: 900 });
    await shoot(page, '111-live-awaiting-approval');
    // Withdrawn: back in its place.
    const withdrawn = await server.app.inject({
      method: 'POST',
      url: `/v1/approvals/${request.request_id}/withdraw`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: {},
    });
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    await expect
      .poll(() => services(page), { timeout: 15_000 })
      .toEqual(['svc-f', 'svc-b', 'svc-e', 'svc-a', 'svc-c', 'svc-d']);
    await page.context().close();
  });

  it('groups by incident or service, filters by severity and text, all in the URL', async () => {
    // The same alert name on two services: one incident (the default grouping is alertname).
    await fire('QueueBacklog', 'billing', 'critical');
    await fire('QueueBacklog', 'invoicing', 'warning');
    const page = await livePage();
    await rowOf(page, 'invoicing').waitFor({ timeout: 15_000 });

    await page.getByLabel('Group by').selectOption('incident');
    await expect.poll(() => page.url()).toMatch(/group=incident/);
    const shared = table(page)
      .locator('tbody')
      .filter({ has: page.locator('td.service', { hasText: /^billing$/ }) });
    await expect
      .poll(() => shared.locator('tr[data-episode] td.service').allTextContents())
      .toEqual(['billing', 'invoicing']);
    expect(await shared.locator('tr.group-head').textContent()).toMatch(
      /2 running.*1 critical.*1 warning/,
    );
    // The group without a value is always there, counted.
    await table(page).locator('tr.group-head', { hasText: 'No incident' }).waitFor();

    await page.getByLabel('Group by').selectOption('service');
    await expect.poll(() => page.url()).toMatch(/group=service/);
    const heads = await table(page).locator('tr.group-head th').allTextContents();
    expect(heads.some((h) => /^billing\b.*1 running/.test(h))).toBe(true);
    await shoot(page, '111-live-grouped');

    await page.getByLabel('Group by').selectOption('none');
    await page.getByRole('button', { name: /critical/ }).click();
    await expect.poll(() => page.url()).toMatch(/sev=critical/);
    await expect.poll(() => services(page)).toEqual(['billing', 'svc-f', 'svc-b']);
    await page.getByRole('searchbox', { name: 'Search' }).fill('queueback');
    await expect.poll(() => page.url()).toMatch(/q=queueback/);
    await expect.poll(() => services(page)).toEqual(['billing']);
    await shoot(page, '112-live-filtered');

    // The URL is the view: opened afresh, it shows the same.
    const again = await livePage(undefined, '/live?sev=critical,warning&q=queue&group=service');
    await expect.poll(() => services(again), { timeout: 15_000 }).toEqual(['billing', 'invoicing']);
    expect(await again.getByLabel('Group by').inputValue()).toBe('service');
    expect(await again.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('queue');
    await again.context().close();
    await page.context().close();
  });

  it('pauses with the button or p (not while typing): "paused at seq N · M new · show"', async () => {
    const page = await livePage();
    await rowOf(page, 'billing').waitFor({ timeout: 15_000 });
    // Typing a p in the search box is text, not a pause.
    await page.getByRole('searchbox', { name: 'Search' }).type('p');
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await expect(page.getByText(/paused at seq/).count()).resolves.toBe(0);
    await page.locator('h1').click();
    await page.keyboard.press('p');
    const note = page.getByText(/paused at seq [\d,]+ · \d+ new/);
    await note.waitFor();
    expect(await note.textContent()).toMatch(/· 0 new/);
    await fire('Paused', 'svc-paused', 'critical');
    await expect.poll(() => note.textContent(), { timeout: 15_000 }).toMatch(/· 1 new/);
    expect(await rowOf(page, 'svc-paused').count()).toBe(0);
    await shoot(page, '113-live-paused');
    await page.getByRole('button', { name: 'show', exact: true }).click();
    await rowOf(page, 'svc-paused').waitFor();
    await page.getByRole('button', { name: /Resume/ }).click();
    await expect(page.getByText(/paused at seq/).count()).resolves.toBe(0);
    await page.context().close();
  });

  it('holds new rows while a row is focused: "N new · show", then highlights and announces them', async () => {
    const page = await livePage();
    await rowOf(page, 'billing').waitFor({ timeout: 15_000 });
    await rowOf(page, 'billing').getByRole('link').first().focus();
    const before = await services(page);
    await fire('HeldBack', 'svc-held', 'critical');
    const pill = page.getByRole('button', { name: /^1 new · show$/ });
    await pill.waitFor({ timeout: 15_000 });
    expect(await services(page)).toEqual(before);
    // Screen readers hear of it at once, whether it is shown yet or not.
    await expect
      .poll(() => page.locator('[aria-live="polite"]').allTextContents())
      .toContainEqual(expect.stringContaining('New critical alert on svc-held: HeldBack'));
    await shoot(page, '114-live-held');
    await pill.click();
    await rowOf(page, 'svc-held').waitFor();
    expect((await services(page))[0]).toBe('svc-held');
    expect(await rowOf(page, 'svc-held').getAttribute('class')).toMatch(/\bnew\b/);
    // The highlight fades within about a second.
    await expect
      .poll(() => rowOf(page, 'svc-held').getAttribute('class'), { timeout: 5_000 })
      .not.toMatch(/\bnew\b/);

    // Scrolled down, the same holds.
    await resize(page, { width: 1440, height: 400 });
    await page.evaluate('document.activeElement.blur(); window.scrollTo(0, 200)');
    await fire('ScrolledPast', 'svc-scrolled', 'critical');
    await page.getByRole('button', { name: /^1 new · show$/ }).waitFor({ timeout: 15_000 });
    expect(await rowOf(page, 'svc-scrolled').count()).toBe(0);
    await page.context().close();
  });

  it('highlights a new row without motion when reduced motion is asked for', async () => {
    const page = await livePage();
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await rowOf(page, 'billing').waitFor({ timeout: 15_000 });
    await fire('Calm', 'svc-calm', 'info');
    await rowOf(page, 'svc-calm').waitFor({ timeout: 15_000 });
    const seen = await page.evaluate<{ cls: string; animation: string }>(`(() => {
      const tr = [...document.querySelectorAll('tr[data-episode]')].find(
        (r) => r.querySelector('td.service')?.textContent === 'svc-calm');
      return { cls: tr.className, animation: getComputedStyle(tr).animationName };
    })()`);
    expect(seen.cls).toMatch(/\bnew\b/);
    expect(seen.animation).toBe('none');
    await page.context().close();
  });

  it('fits at least 20 rows on a 1440×900 screen, and the phone shows severity, service, alert and age', async () => {
    const sevs = ['critical', 'high', 'warning', 'info', undefined];
    for (let i = 0; i < 20; i++) await fire(`Dense${String(i)}`, `dense-${String(i)}`, sevs[i % 5]);
    const page = await livePage();
    await expect
      .poll(() => table(page).locator('tbody tr[data-episode]').count(), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(25);
    const inView = await page.evaluate<number>(
      `[...document.querySelectorAll('tr[data-episode]')].filter(
        (r) => r.getBoundingClientRect().bottom <= 900).length`,
    );
    expect(inView).toBeGreaterThanOrEqual(20);
    await shoot(page, '115-live-dense');

    await resize(page, { width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      390,
    );
    const first = table(page).locator('tbody tr[data-episode]').first();
    for (const cell of ['.sev', 'td.service', 'td.alerts', 'td.age']) {
      expect(await first.locator(cell).isVisible(), cell).toBe(true);
    }
    expect(await first.locator('td.step').isVisible()).toBe(false);
    await page.context().close();
  });

  it('puts a failed action, then an unsure hypothesis, next after approvals, each said on its row', async () => {
    await fire('Flapping', 'svc-failed', 'info');
    await fire('Odd', 'svc-unsure', 'info');
    const running = (
      await server.app.inject({
        method: 'GET',
        url: '/v1/live',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json<{ running: { service: string; episode_id: string }[] }>().running;
    const idOf = (service: string): string =>
      running.find((r) => r.service === service)?.episode_id ?? '';
    const { ledger, writer } = server.runtime;
    const append = (service: string, type: string, data: Record<string, unknown>): void => {
      const id = idOf(service);
      writer.transactNow(() => {
        ledger.append({ type, actor: 'system', trace_id: id, data: { episode_id: id, ...data } });
      });
    };
    const fix = { pack: 'host', id: 'restart', title: 'Restart', risk: 'low', kind: 'restart' };
    for (const service of ['svc-failed', 'svc-unsure'])
      append(service, 'investigation.started', { service, alerts: [], queue_s: 0 });
    append('svc-failed', 'action.taken_back', { fix, call: '{}', ok: true, detail: 'no better' });
    append('svc-unsure', 'investigation.hypotheses', {
      packs: ['host'],
      hypotheses: [{ cause: 'disk_full', confidence: 'suspected' }],
    });
    const page = await livePage();
    // Info both, yet before every critical row: each needs a person's look.
    await expect
      .poll(async () => (await services(page)).slice(0, 2), { timeout: 15_000 })
      .toEqual(['svc-failed', 'svc-unsure']);
    expect(await rowOf(page, 'svc-failed').locator('td.status').textContent()).toMatch(
      /action ↺ taken back$/,
    );
    expect(await rowOf(page, 'svc-unsure').locator('td.confidence').textContent()).toBe(
      '◑ suspected',
    );
    expect(await rowOf(page, 'svc-failed').locator('td.autonomy').textContent()).toBe('shadow');
    // On a phone the failed action and the unsure hypothesis show under the alert.
    await resize(page, { width: 390, height: 844 });
    expect(await rowOf(page, 'svc-failed').locator('td.alerts .failed-action').isVisible()).toBe(
      true,
    );
    const unsure = rowOf(page, 'svc-unsure').locator('td.alerts .conf');
    expect(await unsure.isVisible()).toBe(true);
    expect(await unsure.textContent()).toBe('◑ suspected');
    await resize(page, { width: 1440, height: 900 });
    await shoot(page, '112-live-buckets');
    await page.context().close();
  });

  it('opens its view on the wall with Shift+W: the same filter and search, said in the header', async () => {
    const page = await livePage(undefined, '/live?sev=critical&q=svc-');
    await expect
      .poll(() => services(page), { timeout: 15_000 })
      .toEqual(['svc-scrolled', 'svc-held', 'svc-paused', 'svc-f', 'svc-b']);
    await page.keyboard.press('Shift+W');
    await page.waitForURL(/\/wall\?/);
    expect(new URL(page.url()).search).toBe('?sev=critical&q=svc-');
    await page.getByText('critical only · matching “svc-”', { exact: false }).waitFor();
    const tiles = page.locator('.wall li .service');
    await expect.poll(() => tiles.count()).toBe(5);
    expect((await tiles.allTextContents()).map((t) => t.replace(/^\S+ critical /, ''))).toEqual([
      'svc-scrolled',
      'svc-held',
      'svc-paused',
      'svc-f',
      'svc-b',
    ]);
    await shoot(page, '113-wall-scoped');
    // The service answers the live view with an error: the wall says its data is old.
    await page.route('**/v1/live', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'internal', message: 'test' }),
      }),
    );
    await fire('WallStale', 'svc-wall', 'critical');
    const old = page.getByRole('alert').filter({ hasText: 'Data as of' });
    await old.waitFor({ timeout: 15_000 });
    expect(await old.textContent()).toMatch(
      /^Data as of \d\d:\d\d:\d\d — the last refresh failed, asking again$/,
    );
    await page.context().close();
  });

  it('stays under 5 KB per 10 s idle, and backs off polling when the tab is hidden', async () => {
    const page = await livePage();
    // The stream refused: visible, the tab polls (every 2 s); hidden, every 30 s. Set up
    // before any window opens, so that its sign-in falls in none.
    const polling = await livePage(undefined, '/live');
    await polling
      .context()
      .route('**/v1/live/stream', (route) =>
        route.fulfill({ status: 503, contentType: 'application/json', body: '{}' }),
      );
    await polling.reload();
    await polling.getByRole('heading', { name: /Live/, level: 1 }).waitFor();
    // The two tabs are measured at the same time, each off its own network events (idle,
    // neither changes anything the other would be sent).
    const [streaming, [visible, hidden]] = await Promise.all([
      // 16 s so that the stream's keep-alive (every 15 s) falls inside; counted per 10 s.
      idleBytes(page, 16_000),
      (async () => {
        const shown = await idleBytes(polling, 5_000);
        await polling.evaluate(`(() => {
          Object.defineProperty(document, 'visibilityState', { get: () => 'hidden', configurable: true });
          Object.defineProperty(document, 'hidden', { get: () => true, configurable: true });
          document.dispatchEvent(new Event('visibilitychange'));
        })()`);
        return [shown, await idleBytes(polling, 10_000)] as const;
      })(),
    ]);
    expect(streaming.bytes).toBeGreaterThan(0);
    const streamingPer10s = Math.round((streaming.bytes * 10) / 16);
    expect(streamingPer10s).toBeLessThanOrEqual(5 * 1024);
    expect(visible.requests).toBeGreaterThanOrEqual(2);
    expect(visible.bytes * 2).toBeLessThanOrEqual(5 * 1024);
    expect(hidden.requests).toBeLessThanOrEqual(1);
    expect(hidden.bytes).toBeLessThanOrEqual(5 * 1024);
    // docs/performance.md reports these.
    console.log(
      `idle traffic per tab: streaming ${String(streamingPer10s)} B per 10 s (${String(streaming.bytes)} B in 16 s, ${String(streaming.requests)} requests); ` +
        `stream refused, visible ${String(visible.bytes * 2)} B per 10 s (${String(visible.requests)} requests in 5 s); ` +
        `hidden ${String(hidden.bytes)} B per 10 s (${String(hidden.requests)} requests)`,
    );
    await polling.context().close();
    await page.context().close();
  }, 120_000);
});

/**
 * Bytes a tab sends and receives over `ms` once it is quiet, read off Chromium's network
 * events: each request's headers and body as sent, and each response's headers and body as
 * received (`encodedDataLength`, so compressed sizes), the stream's keep-alives included
 * (request headers as Chromium lists them; HTTP/1.1 framing beyond that is not counted).
 */
async function idleBytes(page: Page, ms: number): Promise<{ bytes: number; requests: number }> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  // Let what the page was doing settle first.
  await new Promise((r) => setTimeout(r, 2000));
  let requests = 0;
  let sent = 0;
  // Per request: what arrived in the window (a finished request's total replaces the sum).
  const received = new Map<string, number>();
  const add = (id: string, n: number): void => {
    received.set(id, (received.get(id) ?? 0) + n);
  };
  const lengthOf = (headers: Record<string, unknown>): number =>
    Object.entries(headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
  cdp.on('Network.requestWillBeSent', (e) => {
    requests++;
    sent += e.request.url.length + 16 + lengthOf(e.request.headers);
    sent += e.request.postData?.length ?? 0;
  });
  cdp.on('Network.responseReceived', (e) => {
    add(e.requestId, e.response.encodedDataLength);
  });
  cdp.on('Network.dataReceived', (e) => {
    // Chromium gives a streamed body's chunks no encoded length (0): count the bytes read,
    // plus 7 for the chunk's framing (its hex size line and CRLFs); the stream is not
    // compressed, so that is what crossed the wire.
    add(e.requestId, e.encodedDataLength > 0 ? e.encodedDataLength : e.dataLength + 7);
  });
  cdp.on('Network.loadingFinished', (e) => {
    received.set(e.requestId, Math.max(received.get(e.requestId) ?? 0, e.encodedDataLength));
  });
  await new Promise((r) => setTimeout(r, ms));
  await cdp.detach();
  const bytes = sent + [...received.values()].reduce((a, b) => a + b, 0);
  return { bytes, requests };
}
