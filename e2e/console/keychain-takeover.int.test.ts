// Taking over as home on the Keychain page, in a real Chromium. The home A is a real process
// (dist/server.mjs), killed with SIGKILL; its members M and R run in this process on real
// ports with the keychain's clocks shortened (silence 2 s instead of 15 minutes), because a
// browser test cannot wait 15 minutes: the rules and the page are the real ones. R is stopped
// too, so no member can confirm that A is lost. On M's page, as the owner: the confirmation
// names A and the next epoch; while M has not yet seen the silence the server's words say so;
// then the take-over is refused as unconfirmed, in the page's words (a box to tick, not the
// API's force field), and only then is the box offered; ticked, M becomes the home at epoch 2
// and its ledger says force was used. Nothing scrolls
// sideways at 390 px (screenshots 89-91).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../server/testing/processes.js';
import {
  api,
  closeMembers,
  eventsOf,
  inProcessMember,
} from '../../server/testing/keychain/in-process.js';
import {
  call,
  startInstall,
  stopAll,
  waitFor,
  type Install,
} from '../../server/testing/keychain/installs.js';
import { ADMIN_TOKEN, type TestServer } from '../../server/testing/test-server.js';
import { launch, shoot, signInWithAdminToken, widthAtPhone } from './browser.js';

requireBundle();

const SHORT = { pullEveryMs: 250, takeoverSilenceMs: 2000, homeAliveMs: 3000 };

let a: Install;
let m: TestServer;
let r: TestServer;
let mUrl = '';
let aFp = '';
let browser: Browser | undefined;
let page: Page;

const roleLine = () => page.getByLabel('keychain role');
const confirmation = () => page.getByRole('dialog', { name: 'Take over as home?' });
const forceBox = () =>
  confirmation().getByLabel(
    'Take over even though no other member could confirm that DC A is lost',
  );

/** Click the confirmation's Take over: null once it held, else the refusal's code and message. */
async function tryTakeOver(): Promise<{ error: string; message: string } | null> {
  const [res] = await Promise.all([
    page.waitForResponse((res) => res.url().endsWith('/v1/keychain/take-over')),
    confirmation().getByRole('button', { name: 'Take over as home', exact: true }).click(),
  ]);
  return res.ok() ? null : ((await res.json()) as { error: string; message: string });
}

/** The refusal the confirmation shows. */
const refusal = async () => (await confirmation().getByRole('alert').textContent()) ?? '';

beforeAll(async () => {
  a = await startInstall('tk-a', 'e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2');
  const home = await call(a, 'POST', '/v1/keychain/home', { label: 'DC A' });
  expect(home.status).toBe(200);
  aFp = String(home.body['fingerprint']);
  const keys = (await call(a, 'POST', '/v1/keychain/site-keys', { labels: ['m', 'r'] })).body[
    'keys'
  ] as { key: string }[];
  const joined = await inProcessMember('tk-m', a.url, keys[0]?.key ?? '', SHORT);
  m = joined.s;
  mUrl = `http://127.0.0.1:${String(joined.port)}`;
  r = (await inProcessMember('tk-r', a.url, keys[1]?.key ?? '', SHORT)).s;
  for (const s of [m, r])
    await waitFor('a member', async () =>
      (await api(s, 'GET', '/v1/keychain')).body['role'] === 'member' ? true : null,
    );
  // Both members must know each other before the home goes, or M would ask no one.
  await waitFor('M to know R', async () => {
    await api(m, 'POST', '/v1/keychain/pull');
    const members = (await api(m, 'GET', '/v1/keychain')).body['members'] as unknown[];
    return members.length === 3 ? true : null;
  });
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await signInWithAdminToken(page, `${mUrl}/`, ADMIN_TOKEN);
  await page.goto(`${mUrl}/keychain`);
  await roleLine().filter({ hasText: 'Member of DC A' }).waitFor();
}, 90_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await closeMembers();
  await stopAll();
});

describe('taking over as home on the Keychain page', () => {
  it('offers force only once no member could confirm, and with it makes this install the home', async () => {
    a.child.kill('SIGKILL');
    await new Promise((res) => a.child.once('exit', res));
    // R is lost as well: no member is left to confirm that the home is gone.
    await r.stop();

    await page.getByRole('button', { name: 'Take over as home…' }).click();
    await confirmation().waitFor();
    expect(await confirmation().textContent()).toContain('Take over as home from DC A?');
    expect(await confirmation().textContent()).toContain('becomes the home at epoch 2');
    expect(await forceBox().count()).toBe(0);
    await shoot(page, '89-keychain-takeover-confirm');

    // Until M has itself seen the silence the server says so; then no member can confirm.
    const said: string[] = [];
    for (;;) {
      const refused = await tryTakeOver();
      expect(refused, 'M took over with no member confirming').not.toBeNull();
      said.push(refused?.error ?? '');
      if (refused?.error === 'takeover_unconfirmed') break;
      expect(refused?.error).toBe('home_not_silent');
      // The server's own words while the silence is too short: time down does not count.
      await expect.poll(refusal).toContain('down does not count');
      await new Promise((res) => setTimeout(res, 200));
    }
    // In the page's words, naming its own box rather than the API's force field.
    await expect
      .poll(refusal)
      .toContain('No other member answered to confirm that DC A is lost, so nothing changed');
    expect(await refusal()).not.toContain('force');
    expect((await api(m, 'GET', '/v1/keychain')).body).toMatchObject({ role: 'member', epoch: 1 });
    await forceBox().waitFor();
    expect(await forceBox().isChecked()).toBe(false);
    await shoot(page, '90-keychain-takeover-force');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);

    await forceBox().check();
    expect(await tryTakeOver()).toBeNull();
    await expect
      .poll(async () => (await roleLine().textContent()) ?? '')
      .toContain('This install is the home');
    const now = (await api(m, 'GET', '/v1/keychain')).body;
    expect(now).toMatchObject({ role: 'home', epoch: 2 });
    expect(eventsOf(m, 'keychain.took_over')).toEqual([
      expect.objectContaining({ from: aFp, epoch: 2, accepted: 0, force: true }),
    ]);
    expect(eventsOf(m, 'keychain.takeover_rejected')).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'unconfirmed' })]),
    );
    await shoot(page, '91-keychain-takeover-done');
    expect(await widthAtPhone(page)).toBeLessThanOrEqual(390);
  }, 60_000);
});
