// Every page of the console, signed in with the admin token, at a desktop (1440×900) and a
// phone (390×844), light and dark, in a real Chromium against an in-process server on a real socket: nothing
// scrolls sideways on the phone, no "undefined", "NaN" or "[object Object]" leaks into the
// text, and axe-core finds no serious or critical accessibility violation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBundle } from '../../server/testing/processes.js';
import {
  ADMIN_TOKEN,
  asAdmin,
  buildTestServer,
  episodeOf,
  postAlert,
  type TestServer,
} from '../../server/testing/test-server.js';
import { launch, onLiveSignedIn, resize } from './browser.js';

requireBundle();

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The pages of the navigation (app.tsx PAGES) and the ones reached from them. */
const NAV = [
  '/live',
  '/episodes',
  '/incidents',
  '/approvals',
  '/autonomy',
  '/estate',
  '/learning',
  '/digest',
  '/lookback',
  '/study',
  '/audit',
  '/connections',
  '/policy',
  '/people',
  '/status',
  '/licence',
  '/keychain',
  '/settings',
];

let server: TestServer;
let url = '';
let browser: Browser | undefined;
let page: Page;
/** The detail pages' ids, known once the alerts are in (the routes are listed before). */
const ids = { episode: '', incident: '' };
const routes = [...NAV, '/episodes/:episode', '/incidents/:incident', '/me', '/wall'];
const real = (route: string): string =>
  route.replace(':episode', ids.episode).replace(':incident', ids.incident);

beforeAll(async () => {
  server = await buildTestServer({ delayMs: 0 });
  const port = await freePort();
  await server.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${String(port)}`;
  // Something to show: two alerts, their episodes and the incident they make; then alerts
  // with the long names and labels real sources send, which is what pushes a phone sideways.
  const first = await postAlert(server, { name: 'HighLatency', service: 'payments' });
  await postAlert(server, { name: 'ErrorRate', service: 'payments-db' });
  for (let i = 0; i < 12; i++) {
    await postAlert(server, {
      name: `KubernetesPodCrashLoopingBackOffRestartsExceeded${String(i)}`,
      service: `checkout-frontend-eu-west-1-canary-${String(i)}`,
      labels: { severity: ['critical', 'warning', 'info'][i % 3] ?? 'info', namespace: 'prod' },
      summary: `Pod checkout-frontend-7f9c8d6b5-x${String(i)}qz9 restarted 14 times in the last 10 minutes (CrashLoopBackOff); container logs: java.lang.OutOfMemoryError`,
    });
  }
  const episode = episodeOf(first);
  if (episode === null) throw new Error(`the alert opened no episode: ${first.body}`);
  ids.episode = episode;
  const incidents = await server.app.inject({ url: '/v1/incidents', headers: asAdmin() });
  const incident = incidents.json<{ incidents: { incident_id: string }[] }>().incidents[0];
  if (incident === undefined) throw new Error(`no incident: ${incidents.body}`);
  ids.incident = incident.incident_id;
  browser = await launch();
  // The console's CSP refuses inline scripts, axe's included: the test's own page lets it in.
  page = await onLiveSignedIn(browser, url, ADMIN_TOKEN, { bypassCSP: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server.cleanup();
});

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Open `route` and wait until it has drawn its heading and loaded what it loads first. */
async function open(route: string): Promise<void> {
  await page.goto(`${url}${real(route)}`);
  await page.locator('main h1').first().waitFor({ timeout: 15_000 });
  await page
    .getByText(/^Loading\b/)
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

/** axe-core's serious and critical violations on the page as it is now, one line each. */
async function serious(): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate<Violation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact ?? ''} ${v.id}: ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}${v.nodes.length > 3 ? ` (+${String(v.nodes.length - 3)})` : ''}`,
    );
}

const LEAKS = /\bundefined\b|\bNaN\b|\[object Object\]/;

describe('every page', () => {
  it.each(routes.map((r) => [r]))(
    '%s fits a phone, shows no leaked values and passes axe, light and dark',
    async (route) => {
      const found: string[] = [];
      // Light at both widths, and dark (the default for operations and walls) at the desk.
      for (const { scheme, ...size } of [
        { width: 1440, height: 900, scheme: 'light' as const },
        { width: 390, height: 844, scheme: 'light' as const },
        { width: 1440, height: 900, scheme: 'dark' as const },
      ]) {
        await resize(page, size);
        await page.emulateMedia({ colorScheme: scheme });
        await open(route);
        const at = `${route} at ${String(size.width)} ${scheme}`;
        const text = await page.evaluate<string>('document.body.innerText');
        const leak = LEAKS.exec(text);
        if (leak !== null) {
          const i = leak.index;
          found.push(`${at}: "${text.slice(Math.max(0, i - 40), i + 20).replace(/\s+/g, ' ')}"`);
        }
        if (size.width === 390) {
          const [scroll, client] = await page.evaluate<[number, number]>(
            '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
          );
          if (scroll > client) found.push(`${at}: ${String(scroll)} px wide`);
        }
        for (const v of await serious()) found.push(`${at}: ${v}`);
      }
      expect(found).toEqual([]);
    },
    60_000,
  );
});
