// The Learning page in a real Chromium against an in-process server on a real port (the
// episodes and their diagnoses are seeded through the ledger, as the orchestrator writes
// them): counts, calibration as a chart and a table, a demoted cause, a learned pattern
// promoted and disabled by the admin, and an episode labelled from outside.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../server/shared/clock.js';
import { seedEpisodes } from '../../server/testing/episodes/episodes.js';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  buildTestServer,
  type TestServer,
} from '../../server/testing/test-server.js';
import { openSignedIn, shoot, widthAtPhone } from './browser.js';

requireBundle();

const NOW = new Date().toISOString();
const clock = createFakeClock(NOW);
let server: TestServer;
let url = '';
let browser: Browser | undefined;
let page: Page;
let wrongOnes: string[] = [];
let unjudged = '';

const day = (d: number, h: number) =>
  new Date(Date.parse(NOW) - d * 86_400_000 + h * 3_600_000).toISOString();

function seed(
  n: number,
  service: string,
  alerts: string[],
  lead: { cause: string; pack: string; confidence: string; fixes: string[]; pattern?: string },
): string[] {
  const ids = seedEpisodes(
    { ...server.runtime, clock },
    Array.from({ length: n }, (_, i) => ({
      service,
      alerts,
      t_open: day(i + 2, 0),
      t_close: day(i + 2, 1),
      lead,
    })),
  ).map(([id]) => id);
  clock.set(NOW);
  return ids;
}

async function team(id: string, verdict: string, detail?: string): Promise<void> {
  const res = await server.app.inject({
    method: 'POST',
    url: `/v1/episodes/${id}/team`,
    headers: asAdmin(),
    payload: { verdict, ...(detail !== undefined && { detail }) },
  });
  expect(res.statusCode, res.body).toBe(200);
}

beforeAll(async () => {
  server = await buildTestServer({ clock, delayMs: 0 });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  const db = seed(3, 'db', ['PgConnectionsExhausted'], {
    cause: 'pg_connections_exhausted',
    pack: 'postgresql',
    confidence: 'proven',
    fixes: ['terminate_idle'],
  });
  const web = seed(5, 'web', ['NginxDown'], {
    cause: 'nginx_down',
    pack: 'nginx',
    confidence: 'proven',
    fixes: ['restart_nginx'],
  });
  for (const id of [...db, ...web.slice(0, 2)]) await team(id, 'same');
  wrongOnes = web.slice(2);
  [unjudged = ''] = seed(1, 'web', ['NginxDown'], {
    cause: 'nginx_down',
    pack: 'nginx',
    confidence: 'proven',
    fixes: ['restart_nginx'],
  });
  for (const id of wrongOnes) await team(id, 'other', 'the upstream was down');
  ({ browser, page } = await openSignedIn(url, ADMIN_TOKEN, 'Learning'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

describe('the Learning page', () => {
  it('shows counts, calibration as a chart and a table, and the demoted cause', async () => {
    await page.getByLabel('labels counted').waitFor();
    expect(await page.getByLabel('labels counted').textContent()).toBe(
      '8 labelled episodes: 5 right, 3 wrong (from team 8).',
    );
    const chart = page.getByRole('img', { name: /^Calibration:/ });
    expect(await chart.getAttribute('aria-label')).toContain('proven: 5 of 8 right');
    expect(await chart.getAttribute('aria-label')).toContain('linked: no labels');
    const proven = page
      .getByRole('table', { name: 'calibration by confidence' })
      .getByRole('row')
      .nth(1);
    expect(await proven.textContent()).toBe('proven5 of 862.5%');
    const demoted = page.getByRole('table', { name: 'demoted causes' }).getByRole('row');
    expect(await demoted.nth(1).textContent()).toContain('▼ nginx_down40% of 5');
    const byCause = page.getByRole('table', { name: 'by cause' });
    expect(await byCause.getByRole('row').nth(1).textContent()).toBe('nginx_down2 of 540%');
    await shoot(page, '93-learning');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
  });

  it('lets the admin promote a proposed pattern and disable it, offering only what its state allows', async () => {
    const row = page.getByRole('table', { name: 'learned patterns' }).getByRole('row').nth(1);
    expect(await row.textContent()).toContain('PgConnectionsExhausted');
    expect(await row.textContent()).toContain('◇ proposed');
    expect(await row.getByRole('button').allTextContents()).toEqual([
      'promote',
      'reject',
      'delete',
    ]);
    await row.getByRole('button', { name: 'promote' }).click();
    await row.filter({ hasText: '◆ promoted' }).waitFor();
    expect(await row.getByRole('button').allTextContents()).toEqual([
      'disable',
      'reject',
      'delete',
    ]);
    await row.getByRole('button', { name: 'disable' }).click();
    await row.filter({ hasText: '○ disabled' }).waitFor();
    const learned = await server.app.inject({
      method: 'GET',
      url: '/v1/learned',
      headers: asAdmin(),
    });
    const [found] = learned.json<{ patterns: { state: string; pattern_id: string }[] }>().patterns;
    expect(found).toMatchObject({ state: 'disabled' });

    // An episode whose proven cause a promoted pattern matched says so, and leads back here.
    const [repeat] = seed(1, 'db', ['PgConnectionsExhausted'], {
      cause: 'pg_connections_exhausted',
      pack: 'postgresql',
      confidence: 'proven',
      fixes: ['terminate_idle'],
      pattern: found?.pattern_id ?? '',
    });
    await page.goto(`${url}/episodes/${repeat ?? ''}`);
    const mark = page.getByLabel('learned pattern');
    await mark.waitFor();
    expect(await mark.textContent()).toBe(
      `◆ Matches learned pattern ${found?.pattern_id ?? ''} (judged right before); its confidence comes from the checks`,
    );
    await mark.getByRole('link').click();
    await page.getByRole('table', { name: 'learned patterns' }).waitFor();
    expect(page.url()).toMatch(/\/learning#patterns$/);
  });

  it('labels an episode from outside with no answer chosen for the person, and the figures move', async () => {
    await page.goto(`${url}/learning`);
    const form = page.getByRole('form', { name: 'label an episode' });
    const submit = form.getByRole('button', { name: 'Label' });
    await form.getByLabel('Episode').fill(unjudged);
    await form.getByLabel('Source').fill('review');
    // Right or wrong is the person's to choose: nothing is ticked, and Label waits for it.
    expect(await form.getByRole('radio', { checked: true }).count()).toBe(0);
    expect(await submit.isDisabled()).toBe(true);
    await form.getByLabel('right').check();
    await submit.click();
    const done = page.getByRole('status').filter({ hasText: 'labelled right' });
    await done.waitFor();
    expect(await done.textContent()).toBe(`${unjudged} labelled right: nginx_down at proven.`);
    await page
      .getByLabel('labels counted')
      .filter({ hasText: '9 labelled episodes: 6 right, 3 wrong (from team 8, review 1).' })
      .waitFor();
    await shoot(page, '94-learning-labelled');
  });
});
