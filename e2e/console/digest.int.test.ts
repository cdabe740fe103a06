// The Digest page in a real Chromium against an in-process server on a real port, with
// episodes seeded through the ledger: today's figures, the last 7 days with the chart and its
// words, and the Markdown to copy.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../server/shared/clock.js';
import { seedEpisodes } from '../../server/testing/episodes/episodes.js';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../../server/testing/test-server.js';
import { openSignedIn, shoot, widthAtPhone } from './browser.js';

requireBundle();

const NOW = new Date().toISOString();
const clock = createFakeClock(NOW);
let server: TestServer;
let url = '';
let browser: Browser | undefined;
let page: Page;

const daysAgo = (d: number, minutes = 0) =>
  new Date(Date.parse(NOW) - d * 86_400_000 + minutes * 60_000).toISOString();

beforeAll(async () => {
  server = await buildTestServer({ clock, delayMs: 0 });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  seedEpisodes({ ...server.runtime, clock }, [
    {
      service: 'web',
      t_open: daysAgo(3),
      t_close: daysAgo(3, 20),
      decision: 'act',
      outcome: 'mitigated',
      result: 'resolved',
      action: 'restart_unit',
      confidence: 'proven',
      restore_s: 300,
    },
    {
      service: 'db',
      t_open: daysAgo(2),
      t_close: daysAgo(2, 30),
      decision: 'ask_human',
      outcome: 'escalated',
      result: 'handed_over',
      handover_s: 45,
    },
  ]);
  clock.set(NOW);
  ({ browser, page } = await openSignedIn(url, ADMIN_TOKEN, 'Digest'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

describe('the Digest page', () => {
  it('shows today so far, then the last 7 days with the chart in words and the text to copy', async () => {
    const figures = page.getByLabel('digest figures');
    await figures.waitFor();
    expect(await figures.textContent()).toContain('Incidents0 opened, 0 ended');
    expect(await figures.textContent()).toContain('Audit log✓ verifies through seq');
    expect(await page.getByText('No incident opened or ended in this period.').count()).toBe(1);

    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await figures.filter({ hasText: 'Incidents2 opened' }).waitFor();
    expect(page.url()).toMatch(/\/digest\?days=7$/);
    expect(await figures.textContent()).toContain('Time to handovermedian 45 s');
    const chart = page.getByRole('img', { name: /^Incidents per day:/ });
    expect(await chart.getAttribute('alt')).toContain(`${daysAgo(3).slice(0, 10)}: 1 opened`);
    const rows = page.getByRole('table', { name: 'incidents by service' }).getByRole('row');
    expect(await rows.allTextContents()).toEqual(['ServiceOpenedEnded', 'db10', 'web10']);
    const text = page.getByLabel('digest as Markdown');
    expect(await text.textContent()).toContain('## What the service did');
    expect(await text.textContent()).toContain('- 1 resolved by the service');
    await shoot(page, '95-digest');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
  });
});
