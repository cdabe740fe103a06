// The Audit page in a real Chromium against an in-process server: a row opens to show its
// data, hash and the episode it is about; verification reads as words, and after a row is
// changed behind the service's back it names the first bad seq and links to the events
// around it.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../server/shared/clock.js';
import { seedEpisodes } from '../../server/testing/episodes/episodes.js';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import { tamper } from '../../server/testing/tamper.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../../server/testing/test-server.js';
import { openSignedIn, shoot, widthAtPhone } from './browser.js';

requireBundle();

let server: TestServer;
let url = '';
let browser: Browser | undefined;
let page: Page;
let episodeId = '';
const clock = createFakeClock(new Date().toISOString());

beforeAll(async () => {
  server = await buildTestServer({ clock, delayMs: 0 });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  const now = Date.now();
  const seeded = seedEpisodes({ ...server.runtime, clock }, [
    {
      service: 'web',
      t_open: new Date(now - 3_600_000).toISOString(),
      t_close: new Date(now - 3_000_000).toISOString(),
      decision: 'ask_human',
      outcome: 'escalated',
      result: 'handed_over',
    },
  ]);
  clock.set(new Date(now).toISOString());
  episodeId = seeded[0]?.[0] ?? '';
  ({ browser, page } = await openSignedIn(url, ADMIN_TOKEN, 'Audit'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

describe('the Audit page', () => {
  it('opens a row to its data, hash and the episode it is about', async () => {
    const table = page.getByRole('table', { name: 'ledger events' });
    const opened = table.getByRole('row', { name: /episode\.opened/ });
    await opened.waitFor();
    const seq = Number((await opened.locator('td').first().textContent())?.replace(/\D/g, ''));
    await opened.getByRole('button', { name: `Open event ${String(seq)}` }).click();
    const data = page.getByLabel(`data of event ${String(seq)}`);
    expect(await data.textContent()).toContain(`"episode_id": "${episodeId}"`);
    expect(await table.locator('.ledger-detail .hash').textContent()).toMatch(/^[0-9a-f]{64}$/);
    await shoot(page, '101-audit-row');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
    await table.getByRole('link', { name: `episode ${episodeId}` }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/episodes/${episodeId}`);
  });

  it('says in words that the ledger verifies', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('button', { name: 'Verify the ledger' }).click();
    const result = page.locator('[data-verify]');
    await result.waitFor();
    expect(await result.textContent()).toMatch(
      /^✓ Verified: \d+ events through seq \d+; no segment sealed yet; \d+ ms\.$/,
    );
  });

  it('names the first bad seq after a row is changed, with a link to the events around it', async () => {
    tamper(
      join(server.env['SVC_DATA'] ?? '', 'svc.db'),
      'ledger',
      { actor: 'mallory' },
      { seq: 3 },
    );
    // Past the seconds a verify's report is kept while the head stays (VERIFY_KEEP_MS).
    clock.set(new Date(Date.parse(clock.nowIso()) + 60_000).toISOString());
    await page.getByRole('button', { name: 'Verify the ledger' }).click();
    const failed = page.locator('[data-verify].error');
    await failed.waitFor();
    expect(await failed.textContent()).toMatch(/^✗ Verification failed at seq 3 \(chain\): /);
    expect(await failed.textContent()).not.toContain('{');
    await shoot(page, '102-audit-tampered');
    await failed.getByRole('link', { name: 'Show the events around seq 3' }).click();
    await expect.poll(() => page.url()).toContain('after_seq=0');
    const seqs = await page
      .getByRole('table', { name: 'ledger events' })
      .locator('tbody > tr > td:first-child')
      .allTextContents();
    expect(seqs.slice(0, 3).map((s) => s.replace(/\D/g, ''))).toEqual(['1', '2', '3']);
  });
});
