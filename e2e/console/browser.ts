// Debian's Chromium driven by playwright-core (no browser download on these machines).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { programOnPath, ROOT, startService, stopStack, type Proc } from '../lab/processes.js';

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

/** Debian's Chromium, found on PATH (/usr/bin/chromium). */
export async function launch(): Promise<Browser> {
  const executablePath = programOnPath('chromium', 'chromium');
  return chromium.launch({ executablePath, args: FLAGS, headless: true });
}

export interface ConsoleBench {
  readonly svc: Proc & { adminToken: string };
  readonly browser: Browser;
  /** Stops the browser, then the service, then whatever the test kept; each even if one fails. */
  stop(): Promise<void>;
  /** More to stop with the rest (a provider, a fake server): returns it. */
  keep: ReturnType<typeof stopStack>['keep'];
}

/**
 * The bundled service and a browser for the console tests. When the browser cannot start
 * (Chromium missing), the service is stopped before the error goes on: nothing is left.
 */
export async function startConsole(
  ...args: Parameters<typeof startService>
): Promise<ConsoleBench> {
  const stack = stopStack();
  try {
    const svc = stack.keep(await startService(...args));
    const browser = stack.keep(await launch());
    return { svc, browser, stop: () => stack.stopAll(), keep: (p) => stack.keep(p) };
  } catch (err) {
    await stack.stopAll();
    throw err;
  }
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
