// Debian's Chromium driven by playwright-core (no browser download on these machines).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from '../lab/processes.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'e2e', 'screenshots');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

/** Save a full-page screenshot for a person to look at (e2e/screenshots is not committed). */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Open `url` signed out and sign in with the admin token: one field labelled "Admin token". */
export async function signInWithAdminToken(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
