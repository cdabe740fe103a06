// The estate page in a real Chromium against the bundled service. A Prometheus-like server
// here answers /api/v1/targets (slowly, so the progress shows) with `service`/`depends_on`
// labels; it is connected as a prometheus connector, overrides set a kind and a placed link
// through the API, and the admin presses Discover on the page. Then: the graph around a focus
// (depth 1, then 2), the side panel of a node, arrow keys and Enter, the list view with
// origins, an override saved in the editor (after a JSON mistake and a 400 naming its field),
// and, with /v1/me answered as a viewer, the admin-only controls disabled with a reason.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Proc } from '../lab/processes.js';
import { shoot, signInWithAdminToken, startConsole, type ConsoleBench } from './browser.js';

/** How long the fake Prometheus takes to list its targets: long enough to see the job run. */
const TARGETS_DELAY_MS = 1500;

const TARGETS = [
  { job: 'web', instance: '10.0.0.1:9100', depends_on: 'db,cache' },
  { job: 'db', instance: '10.0.0.2:9187' },
  { job: 'cache', instance: '10.0.0.3:9121' },
  { job: 'api', instance: '10.0.0.4:8080', depends_on: 'web' },
  { job: 'batch', instance: '10.0.0.5:9100' },
];

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
let page: Page;
let prom: Server;
let promUrl: string;
let targetCalls = 0;
/** Uncaught errors and CSP refusals in the page: none expected. */
const problems: string[] = [];

function fakePrometheus(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'success', data: body }));
    };
    if (path === '/api/v1/status/buildinfo') return json({ version: '2.53.0' });
    if (path === '/-/ready') {
      res.writeHead(200);
      return res.end('ready');
    }
    if (path === '/api/v1/targets') {
      targetCalls++;
      setTimeout(() => {
        json({
          activeTargets: TARGETS.map((t) => ({
            labels: {
              job: t.job,
              instance: t.instance,
              ...(t.depends_on !== undefined && { depends_on: t.depends_on }),
            },
            scrapePool: t.job,
            scrapeUrl: `http://${t.instance}/metrics`,
            health: 'up',
            lastError: '',
            lastScrape: new Date().toISOString(),
          })),
          droppedTargets: [],
        });
      }, TARGETS_DELAY_MS);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'error', error: 'not found' }));
  });
}

async function apiCall(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${svc.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${svc.adminToken}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

const graph = () => page.locator('.estate-graph');
const node = (name: string) => graph().locator(`.react-flow__node[data-id="${name}"]`);
/** The names of the nodes drawn, sorted. */
async function shownNodes(): Promise<string[]> {
  const nodes = await graph().locator('.react-flow__node').all();
  const ids = await Promise.all(nodes.map((n) => n.getAttribute('data-id')));
  return ids.map(String).sort();
}

beforeAll(async () => {
  prom = fakePrometheus();
  await new Promise<void>((resolve) => prom.listen(0, '127.0.0.1', resolve));
  promUrl = `http://127.0.0.1:${String((prom.address() as AddressInfo).port)}`;
  bench = await startConsole({});
  ({ svc, browser } = bench);
  const put = await apiCall('PUT', '/v1/connectors/prom', {
    kind: 'prometheus',
    settings: { url: promUrl },
  });
  expect(put.status).toBe(200);
  // A kind for db and a placed link to a hand-made queue: one step beyond web's neighbours.
  const overrides = await apiCall('PUT', '/v1/estate/overrides', {
    services: {
      db: { aliases: ['pg-main'], kind: 'postgresql' },
      queue: { aliases: [], kind: 'kafka' },
    },
    links: [{ from: 'api', to: 'queue' }],
  });
  expect(overrides.status).toBe(200);
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content.Security.Policy/i.test(msg.text()))
      problems.push(msg.text());
  });
}, 60_000);

afterAll(async () => {
  await bench?.stop();
  await new Promise((resolve) => prom.close(resolve));
});

describe('estate page', () => {
  it('signs in on /estate and shows the overrides before any discovery', async () => {
    await signInWithAdminToken(page, `${svc.url}/estate`, svc.adminToken);
    await page.getByRole('heading', { name: /^Estate/ }).waitFor();
    await page.getByText('No discovery has run yet').waitFor();
    // Only the hand-made services so far.
    await page.getByRole('heading', { name: /2 services · 1 link$/ }).waitFor();
  });

  it('discovers: the job shows its progress, completes, and the estate refetches', async () => {
    await page.getByRole('button', { name: 'Discover' }).click();
    const job = page.locator('.discover-job');
    await job.getByText('discovering…').waitFor();
    expect(await page.getByRole('button', { name: 'Discovering…' }).isDisabled()).toBe(true);
    await job.getByText(/done: 6 services, 4 links/).waitFor({ timeout: 30_000 });
    expect(await job.textContent()).toContain('1/1');
    await job.getByText('prom: ok').waitFor();
    expect(targetCalls).toBe(1);
    await page.getByRole('heading', { name: /6 services · 4 links/ }).waitFor();
    const found = page.getByRole('table', { name: 'connectors found' });
    await found.getByRole('row', { name: /prom/ }).getByText('ok').waitFor();
    // batch links to nothing, and queue only through an override.
    await page.getByRole('heading', { name: /Unlinked \(1\)/ }).waitFor();
  });

  it('draws the neighbourhood of the focus, then depth 2', async () => {
    await page.goto(`${svc.url}/estate?focus=web`);
    await node('web').waitFor();
    await expect.poll(shownNodes).toEqual(['api', 'cache', 'db', 'web']);
    expect(await graph().locator('.react-flow__edge').count()).toBe(3);
    expect(await graph().locator('.react-flow__edge.origin-discovered').count()).toBe(3);
    expect(await node('db').getAttribute('aria-label')).toBe('db, postgresql');
    await graph()
      .locator('.react-flow__edge-text', { hasText: 'discovered label' })
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'show depth 2' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('depth')).toBe('2');
    await expect.poll(shownNodes).toEqual(['api', 'cache', 'db', 'queue', 'web']);
    expect(await graph().locator('.react-flow__edge.origin-override').count()).toBe(1);
    expect(await node('queue').locator('.estate-node.kind-queue').count()).toBe(1);
    // Edges filter by origin: hiding overrides drops queue again.
    await page.getByRole('checkbox', { name: /override/ }).uncheck();
    await expect.poll(shownNodes).toEqual(['api', 'cache', 'db', 'web']);
    await page.getByRole('checkbox', { name: /override/ }).check();
    await expect.poll(shownNodes).toEqual(['api', 'cache', 'db', 'queue', 'web']);
  });

  it('opens a side panel on click, and moves between nodes with the keyboard', async () => {
    await node('db').click();
    const panel = page.getByRole('complementary', { name: 'service db' });
    await panel.waitFor();
    const text = await panel.textContent();
    expect(text).toContain('postgresql');
    expect(text).toContain('10.0.0.2');
    expect(text).toContain('prom: prometheus target job=db');
    expect(await panel.getByRole('link', { name: 'All episodes of db' }).getAttribute('href')).toBe(
      '/episodes?service=db',
    );
    expect(new URL(page.url()).searchParams.get('sel')).toBe('db');
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot(page, 'estate');

    // web sits left of its dependencies: ArrowRight from web reaches one of them, Enter opens it.
    await node('web').focus();
    await page.keyboard.press('ArrowRight');
    const focused = await page.evaluate<string | null>(
      'document.activeElement?.getAttribute("data-id") ?? null',
    );
    expect(['db', 'cache']).toContain(focused);
    await page.keyboard.press('Enter');
    await page.getByRole('complementary', { name: `service ${String(focused)}` }).waitFor();
  });

  it('lists services and links with their origins', async () => {
    await page.getByRole('button', { name: 'List', exact: true }).click();
    const services = page.getByRole('table', { name: 'services' });
    await services.waitFor();
    expect(await services.getByRole('row').count()).toBe(7);
    expect(await services.getByRole('row', { name: /queue/ }).textContent()).toContain('override');
    const links = page.getByRole('table', { name: 'links' });
    const webDb = links.getByRole('row', { name: /web db/ });
    expect(await webDb.textContent()).toContain('discovered label');
    expect(await webDb.textContent()).toContain('prom: label depends_on');
    expect(await links.getByRole('row', { name: /api queue/ }).textContent()).toContain('override');
    expect(new URL(page.url()).searchParams.get('view')).toBe('list');
  });

  it('saves an override in the editor, explaining mistakes first', async () => {
    const form = page.getByRole('form', { name: 'overrides' });
    const text = form.getByRole('textbox', { name: 'Overrides JSON' });
    const save = form.getByRole('button', { name: 'Save overrides' });
    await text.fill('{"links": [');
    await save.click();
    await form
      .getByRole('alert')
      .getByText(/not valid JSON/)
      .waitFor();

    await text.fill(JSON.stringify({ links: [{ from: 'batch', to: 'batch' }] }));
    await save.click();
    await form.getByRole('alert').getByText('links.0.to').waitFor();
    // What was typed stays, whatever refetches in the meantime.
    expect(await text.inputValue()).toContain('"batch"');

    await text.fill(
      JSON.stringify({
        services: {
          db: { aliases: ['pg-main'], kind: 'postgresql' },
          queue: { aliases: [], kind: 'kafka' },
        },
        links: [
          { from: 'api', to: 'queue' },
          { from: 'batch', to: 'queue' },
        ],
      }),
    );
    await save.click();
    await form.getByRole('status').getByText('Saved the overrides').waitFor();
    const links = page.getByRole('table', { name: 'links' });
    const placed = links.getByRole('row', { name: /batch queue/ });
    await placed.waitFor();
    expect(await placed.textContent()).toContain('override');
    const res = await apiCall('GET', '/v1/estate/overrides');
    const body = (await res.json()) as { overrides: { links: unknown[] } };
    expect(body.overrides.links).toEqual([
      { from: 'api', to: 'queue' },
      { from: 'batch', to: 'queue' },
    ]);
  });

  it('shows no suggestions from the real service, then confirms one it is given', async () => {
    const section = page.locator('.estate-suggestions');
    // No episodes and no probes here: the real service has nothing to suggest.
    await section.getByText('No suggestions waiting.').waitFor();
    // Making a real suggestion needs co-opening episodes or sshd: answer the list in the
    // browser instead, and check what the page sends.
    const sent: unknown[] = [];
    await page.route('**/v1/estate/suggestions', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          suggestions: [
            {
              id: 'sug-0123456789abcdef',
              from: 'batch',
              to: 'db',
              evidence: 'episodes of batch and db opened within 120 s 4 times',
              score: 0.67,
            },
          ],
        }),
      }),
    );
    await page.route('**/v1/estate/suggestions/confirm', (route) => {
      sent.push(route.request().postDataJSON());
      return route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          id: 'sug-0123456789abcdef',
          from: 'batch',
          to: 'db',
          status: 'confirmed',
          evidence: 'episodes of batch and db opened within 120 s 4 times',
          reason: null,
          link: null,
        }),
      });
    });
    await page.goto(`${svc.url}/estate?focus=web`);
    const row = page
      .getByRole('table', { name: 'suggested links' })
      .getByRole('row', { name: /batch → db/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('0.67');
    await row.getByRole('button', { name: 'Confirm batch → db' }).click();
    await section.getByRole('status').getByText('Confirmed batch → db').waitFor();
    expect(sent).toEqual([{ id: 'sug-0123456789abcdef' }]);
    await page.unroute('**/v1/estate/suggestions');
    await page.unroute('**/v1/estate/suggestions/confirm');
  });

  it('disables the admin-only controls for a viewer, with the reason', async () => {
    // No API makes a viewer yet: answer /v1/me as one, the rest stays real.
    await page.route('**/v1/me', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ name: 'vera', role: 'viewer', kind: 'session' }),
      }),
    );
    await page.goto(`${svc.url}/estate?focus=api`);
    await node('api').waitFor();
    const discover = page.getByRole('button', { name: 'Discover' });
    await expect.poll(() => discover.isDisabled()).toBe(true);
    expect(await discover.getAttribute('title')).toContain('Only an admin can do this');
    expect(await discover.getAttribute('title')).toContain('viewer');
    const form = page.getByRole('form', { name: 'overrides' });
    expect(await form.getByRole('button', { name: 'Save overrides' }).isDisabled()).toBe(true);
    expect(
      await form.getByRole('textbox', { name: 'Overrides JSON' }).getAttribute('readonly'),
    ).toBe('');
    await page.unroute('**/v1/me');
  });

  it('ran without errors or Content-Security-Policy refusals in the page', () => {
    expect(problems).toEqual([]);
  });
});
