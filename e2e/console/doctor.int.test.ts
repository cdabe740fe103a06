// The doctor on the Status page in a real Chromium against an in-process server: failing
// areas first, each check that is not ok linked to the page that mends it, and a re-run that
// skips the server's cache. The failing check is real: SVC_ML_TRUST names no key.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../../server/testing/test-server.js';
import { openSignedIn, shoot, widthAtPhone } from './browser.js';

requireBundle();

let server: TestServer;
let url = '';
let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  server = await buildTestServer({ delayMs: 0, env: { SVC_ML_TRUST: 'no such key' } });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  ({ browser, page } = await openSignedIn(url, ADMIN_TOKEN, 'Status'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

describe('the doctor', () => {
  it('puts failing areas first, worst first within each, and says how many of each', async () => {
    await page
      .getByRole('table', { name: /^doctor checks: / })
      .first()
      .waitFor();
    const classes = (rows: { className: string }[]) =>
      rows.map((r) => r.className.replace('check-', ''));
    const rank: Record<string, number> = { fail: 0, warn: 1, ok: 2 };
    const captions = await page.locator('table.doctor-area caption').allTextContents();
    const worstOf: number[] = [];
    for (const caption of captions) {
      const inArea = await page
        .getByRole('table', { name: `doctor checks: ${caption}` })
        .locator('tr')
        .evaluateAll(classes);
      const ranks = inArea.map((s) => rank[s] ?? 3);
      expect(ranks, caption).toEqual([...ranks].sort((a, b) => a - b));
      worstOf.push(ranks[0] ?? 3);
    }
    expect(worstOf).toEqual([...worstOf].sort((a, b) => a - b));
    expect(worstOf[0]).toBe(0);
    const failing = page
      .getByRole('table', { name: 'doctor checks: Diagnosis' })
      .getByRole('row', { name: /ML artefacts/ });
    expect(await failing.getAttribute('class')).toBe('check-fail');
    expect(await failing.textContent()).toContain('SVC_ML_TRUST is neither a PEM public key');
    const fails = worstOf.length === 0 ? 0 : await page.locator('tr.check-fail').count();
    expect(await page.locator('.doctor-summary').textContent()).toMatch(
      new RegExp(`^✗ fail ${String(fails)} failing, \\d+ warning, \\d+ ok · checked`),
    );
    await shoot(page, '100-doctor');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
  });

  it('re-runs past the cache', async () => {
    const summary = page.locator('.doctor-summary');
    await summary.filter({ hasText: 'checked' }).waitFor();
    await page.getByRole('button', { name: 'Re-run' }).click();
    await page.getByRole('button', { name: 'Re-run' }).waitFor();
    expect(await summary.textContent()).not.toContain('(cached)');
  });

  it('links a check that is not ok to the page that mends it', async () => {
    const connections = page.getByRole('table', { name: 'doctor checks: Connections' });
    await connections.getByRole('link', { name: 'Mend on the Connections page' }).click();
    await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/connections');
  });
});
