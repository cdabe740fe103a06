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
  /** Stops the browser, then the service; each even if the other fails. */
  stop(): Promise<void>;
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
    return { svc, browser, stop: () => stack.stopAll() };
  } catch (err) {
    await stack.stopAll();
    throw err;
  }
}

/** The widths a person checks the console at: a desktop, and a phone (`<name>-390.png`). */
const WIDTHS = [
  { width: 1440, height: 900, suffix: '' },
  { width: 390, height: 844, suffix: '-390' },
] as const;

/** Whether the page paints a frame within `ms` (a requestAnimationFrame callback runs). */
async function isPainting(page: Page, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A page closed while waiting is not painting (and leaves no unhandled rejection behind).
  const frame = page
    .evaluate(`new Promise((done) => requestAnimationFrame(() => done(true)))`)
    .then((painted) => painted === true)
    .catch(() => false);
  const late = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms);
  });
  try {
    return await Promise.race([frame, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resize the page and see that it paints again. On CI, a page resized around a full-page
 * screenshot once stopped producing frames: Playwright's click, which waits for two frames
 * to call an element stable, then hung for its whole timeout. Bringing the page to the front
 * restarts its frames; the log says when that was needed, and a page that still paints
 * nothing fails here, naming the cause, instead of in some later click.
 */
export async function resize(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  if (await isPainting(page, 3000)) return;
  console.warn(`e2e: ${page.url()} painted no frame 3 s after a resize; bringing it to the front`);
  await page.bringToFront();
  if (!(await isPainting(page, 5000)))
    throw new Error(`${page.url()} paints no frames after a resize to ${JSON.stringify(size)}`);
}

/**
 * Save full-page screenshots at each width for a person to look at (e2e/screenshots is not
 * committed); the page gets its own viewport back after. `fullPage: false` keeps to the
 * screen, where what is sticky or fixed (a pill, a pinned head) shows where a person sees it.
 */
export async function shoot(
  page: Page,
  name: string,
  { fullPage = true }: { fullPage?: boolean } = {},
): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const own = page.viewportSize();
  for (const w of WIDTHS) {
    await resize(page, { width: w.width, height: w.height });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}${w.suffix}.png`), fullPage });
  }
  // Not in a `finally`: after a failed resize another would only wait and hide the error.
  if (own !== null) await resize(page, own);
}

/** Open `url` signed out and sign in with the admin token: one field labelled "Admin token". */
export async function signInWithAdminToken(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * A new page of `browser` at 1440×900, signed in with the admin token and on Live. `bypassCSP`
 * lets a test inject a script of its own (axe-core) past the console's CSP.
 */
export async function onLiveSignedIn(
  browser: Browser,
  url: string,
  token: string,
  options: { bypassCSP?: boolean } = {},
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, ...options });
  await signInWithAdminToken(page, `${url}/live`, token);
  await page.getByRole('heading', { name: /Live/, level: 1 }).waitFor();
  return page;
}

/** The page's width at a 390 px phone screen (the viewport comes back after): at most 390 means
 * nothing scrolls sideways. It is read two frames after the resize, once resize observers and
 * the renders they start have run, as a person would see it. */
export async function widthAtPhone(page: Page): Promise<number> {
  const own = page.viewportSize();
  await resize(page, { width: 390, height: 844 });
  try {
    return await page.evaluate<number>(
      `new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() =>
        setTimeout(() => done(document.documentElement.scrollWidth), 0))))`,
    );
  } finally {
    if (own !== null) await resize(page, own);
  }
}

/** A browser signed in with the admin token at `url`, on the page named in the navigation. */
export async function openSignedIn(
  url: string,
  adminToken: string,
  navLink: string,
): Promise<{ browser: Browser; page: Page }> {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await signInWithAdminToken(page, `${url}/`, adminToken);
  await page.getByRole('link', { name: navLink }).click();
  await page.getByRole('heading', { name: navLink, level: 1 }).waitFor();
  return { browser, page };
}

/** A JSON call to the service with a bearer token; the answer's body parsed ({} when empty). */
export async function callAs<T>(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as T };
}
