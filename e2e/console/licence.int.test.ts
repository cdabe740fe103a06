// The Licence page in a real Chromium against the bundled service (issue 19): with no licence
// the set-up leads to it; a refused licence names its check and changes nothing; a file
// installs; a licence that gives something up lists the losses and installs only when
// acknowledged; the banner on every page while expiring or in grace; buttons follow the role;
// removing asks first and goes back to setup; a mounted SVC_LICENCE file disables install and
// remove with why. The installs section is left out when the service answers 404 for
// GET /v1/licence/installs; its exchange (ask → code and text, look → digits and checks, vouch
// with a wrong then the right code, poll) is driven against answers routed in the browser in
// the shapes of licence.md §3.7, until those endpoints exist; the usage download is the real one.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../server/install/index.js';
import type { LicencePayload } from '../../server/licence/index.js';
import { createTestIssuer, licencePayload } from '../../server/testing/licence/issuer.js';
import { startService, type Proc } from '../lab/processes.js';
import { shoot, signInWithAdminToken, startConsole, type ConsoleBench } from './browser.js';

/** The machine id startService writes (e2e/lab/processes.ts). */
const MACHINE_ID = '7a1c3e5f9b2d4c6e8f0a1b3c5d7e9f21';
const THIS = fingerprintOf(MACHINE_ID, 'machine-id');
const DAY = 86_400_000;
const issuer = createTestIssuer();
const LICENCE_ID = licencePayload(new Date().toISOString()).licence_id;

/** A licence for this install, issued now, then `over`. */
function here(over: Partial<LicencePayload> = {}): string {
  const now = new Date().toISOString();
  return JSON.stringify(
    issuer.licence(
      licencePayload(now, {
        licence_id: LICENCE_ID,
        installs: [
          {
            fingerprint: THIS,
            install_pub: randomBytes(32).toString('base64url'),
            label: 'prod',
            role: 'production',
            added_at: now,
            via: 'authority',
          },
        ],
        ...over,
      }),
    ),
  );
}

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
let page: Page;
let owner: Page;
/** Vic, a viewer (people can be added only while the service operates). */
let viewerToken = '';
const contexts: BrowserContext[] = [];

async function http<T>(
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${svc.url}${path}`, {
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

const status = async () =>
  (
    await http<{ mode: string; licence: Record<string, unknown> | null }>(
      svc.adminToken,
      'GET',
      '/v1/status',
    )
  ).body;

/** A person of `role` with a session (break-glass bootstrap makes them owner; then the role). */
async function person(email: string, name: string, role: string): Promise<string> {
  const made = await http<{ id: string }>(svc.adminToken, 'POST', '/v1/users', {
    email,
    name,
    role,
  });
  expect(made.status).toBe(201);
  const boot = await http<{ token: string }>(svc.adminToken, 'POST', '/v1/auth/bootstrap', {
    email,
    name,
  });
  expect(boot.status).toBe(200);
  if (role !== 'owner') {
    expect((await http(svc.adminToken, 'PUT', `/v1/users/${made.body.id}`, { role })).status).toBe(
      200,
    );
  }
  return boot.body.token;
}

async function pageWith(token: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  contexts.push(ctx);
  const p = await ctx.newPage();
  await p.goto(`${svc.url}/`);
  await p.evaluate(`localStorage.setItem('svc.session', ${JSON.stringify(token)})`);
  return p;
}

const navLicence = (p: Page) =>
  p.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Licence' });
const licenceText = (p: Page) => p.getByLabel('Licence text', { exact: true });
const facts = (p: Page) => p.getByRole('definition');

beforeAll(async () => {
  bench = await startConsole({ SVC_TRIAL: '0' });
  ({ svc, browser } = bench);
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await bench?.stop();
});

describe('the Licence page', () => {
  it('with no licence, the set-up leads to the Licence page; no installs section where the service has none', async () => {
    expect((await status()).mode).toBe('setup');
    await signInWithAdminToken(page, `${svc.url}/live`, svc.adminToken);
    // Setup mode: every page is the set-up; its banner leads to the Licence page.
    await page.getByRole('heading', { name: 'Set-up' }).waitFor();
    const banner = page.getByRole('status').filter({ hasText: 'Mode setup' });
    const asked = page.waitForResponse((r) => r.url().endsWith('/v1/licence/installs'));
    await banner.getByRole('link', { name: 'Install a licence' }).click();
    await page.getByRole('heading', { name: 'Licence', exact: true }).waitFor();
    expect(page.url()).toMatch(/\/licence$/);
    await page.getByText('No licence').waitFor();
    await page.getByRole('form', { name: 'Install a licence' }).waitFor();
    // GET /v1/licence/installs answers 404 here: the section is left out, with no wording.
    expect((await asked).status()).toBe(404);
    expect(await page.getByRole('heading', { name: /^Installs/ }).count()).toBe(0);
    // With no licence there is nothing to state: the usage section waits for one.
    expect(await page.getByRole('heading', { name: 'Usage statement' }).count()).toBe(0);
    expect(await page.content()).not.toMatch(/no install exchange|not available yet|coming soon/i);
    await shoot(page, '80-licence-none');
  });

  it('a refused licence names its check and leaves everything as it was', async () => {
    const foreign = JSON.stringify(issuer.licence(licencePayload(new Date().toISOString())));
    await licenceText(page).fill(foreign);
    await page.getByRole('button', { name: 'Install licence' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not installed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('not_for_this_install');
    expect(await alert.textContent()).toContain('Nothing was installed.');
    await shoot(page, '81-licence-refused');

    await licenceText(page).fill('{"format":"svc-licence/1"');
    await page.getByRole('button', { name: 'Install licence' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /check format failed/ })
      .waitFor();
    expect((await status()).mode).toBe('setup');
  });

  it('a licence file chosen installs: the page shows tier, customer, limits, expiry, grace and stage', async () => {
    await page.getByLabel('Or choose the licence file').setInputFiles({
      name: 'licence.json',
      mimeType: 'application/json',
      buffer: Buffer.from(here({ serial: 1 })),
    });
    await page.getByText('Read from licence.json.').waitFor();
    await page.getByRole('button', { name: 'Install licence' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Installed: enterprise for Test Customer Ltd.' })
      .waitFor();
    const summary = page.getByRole('definition');
    await summary.filter({ hasText: 'Test Customer Ltd' }).waitFor();
    const text = (await page.getByLabel('licence in force').textContent()) ?? '';
    expect(text).toContain('enterprise');
    expect(text).toContain('0 counted of 250'); // services_used: no signal yet
    expect(text).toContain('1 of 10');
    expect(text).toMatch(/in 36[45] days/);
    expect(text).toContain('✓ valid');
    expect(text).toContain('signed by the licence authority');
    expect(text).toContain(THIS);
    expect(text).toMatch(/auto: confirmed with the licence authority/);
    expect((await status()).mode).not.toBe('setup');
    // The set-up banner is gone and the other pages answer.
    expect(await page.getByText('Mode setup').count()).toBe(0);
    await shoot(page, '82-licence-installed');
  });

  it('a licence that gives something up lists the losses; it installs only when acknowledged', async () => {
    await licenceText(page).fill(
      here({
        serial: 2,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
      }),
    );
    await page.getByRole('button', { name: 'Install licence' }).click();
    const losing = page.getByRole('alert', { name: 'would lose' });
    await losing.waitFor();
    const items = await losing.getByRole('listitem').allTextContents();
    expect(items).toEqual(['services limit 250 → 50', 'the keychain']);
    await shoot(page, '83-licence-would-lose');
    // Keeping the licence in force changes nothing.
    await losing.getByRole('button', { name: 'Keep the licence in force' }).click();
    expect((await status()).licence).toMatchObject({ services: 250 });
    await page.getByRole('button', { name: 'Install licence' }).click();
    await losing.getByRole('button', { name: 'Install anyway' }).click();
    await page.getByRole('status').filter({ hasText: 'Installed: enterprise' }).waitFor();
    expect((await status()).licence).toMatchObject({ services: 50 });
    await facts(page)
      .filter({ hasText: /^0 counted of 50$/ })
      .waitFor();
  });

  it('in grace, a banner on every page says when grace ends and links to the Licence page', async () => {
    const now = Date.now();
    const r = await http(svc.adminToken, 'POST', '/v1/licence', {
      licence: here({
        serial: 3,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
        not_before: new Date(now - 40 * DAY).toISOString(),
        expires_at: new Date(now - 2 * DAY).toISOString(),
        grace_days: 30,
      }),
      acknowledge: true,
    });
    expect(r.status).toBe(200);
    expect((await status()).licence).toMatchObject({ stage: 'in_grace', in_grace: true });
    await page.goto(`${svc.url}/episodes`);
    const banner = page.getByRole('status', { name: 'licence' });
    await banner.waitFor();
    const words = (await banner.textContent()) ?? '';
    expect(words).toContain('The licence has expired');
    expect(words).toContain('grace period ends at');
    await shoot(page, '84-licence-banner-grace');
    await banner.getByRole('link', { name: 'Renew or install a licence' }).click();
    await page.getByRole('heading', { name: 'Licence', exact: true }).waitFor();
    expect(page.url()).toMatch(/\/licence$/);
    expect((await page.getByLabel('licence in force').textContent()) ?? '').toContain('in grace');
    // The banner stays on the Licence page too, without the link to itself.
    await banner.waitFor();
    expect(await banner.getByRole('link').count()).toBe(0);
  });

  it('expiring, the banner counts the days left', async () => {
    const r = await http(svc.adminToken, 'POST', '/v1/licence', {
      licence: here({
        serial: 4,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
        expires_at: new Date(Date.now() + 9 * DAY - 3_600_000).toISOString(),
      }),
      acknowledge: true,
    });
    expect(r.status).toBe(200);
    await page.goto(`${svc.url}/status`);
    const banner = page.getByRole('status', { name: 'licence' });
    await banner.filter({ hasText: 'The licence expires in 9 days' }).waitFor();
    await shoot(page, '85-licence-banner-expiring');
    // Renewed: the banner goes.
    const renewed = await http(svc.adminToken, 'POST', '/v1/licence', {
      licence: here({
        serial: 5,
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
      }),
    });
    expect(renewed.status).toBe(200);
    await page.goto(`${svc.url}/status`);
    await page.getByRole('heading', { name: 'Status' }).waitFor();
    await page.getByRole('table', { name: 'doctor checks' }).waitFor();
    expect(await page.getByRole('status', { name: 'licence' }).count()).toBe(0);
  });

  it('buttons follow the role: viewers and admins see install and remove disabled with why', async () => {
    // An owner person first: the others are made owner by the bootstrap, then lowered.
    owner = await pageWith(await person('olive@lab.test', 'Olive Owner', 'owner'));
    viewerToken = await person('vic@lab.test', 'Vic Viewer', 'viewer');
    const viewer = await pageWith(viewerToken);
    const admin = await pageWith(await person('ann@lab.test', 'Ann Admin', 'admin'));
    for (const [p, name] of [
      [viewer, 'viewer'],
      [admin, 'admin'],
    ] as const) {
      await p.goto(`${svc.url}/status`);
      await navLicence(p).click();
      await p.getByLabel('licence in force').waitFor();
      expect(await p.getByRole('button', { name: 'Install licence' }).isDisabled(), name).toBe(
        true,
      );
      expect(await licenceText(p).isDisabled(), name).toBe(true);
      await p.getByText('Installing a licence needs the owner role.').waitFor();
      expect(await p.getByRole('button', { name: 'Remove licence…' }).isDisabled(), name).toBe(
        true,
      );
      await p.getByText('Removing the licence needs the owner role.').waitFor();
    }
    await shoot(viewer, '86-licence-viewer');
  });

  it('removing asks first, then goes back to setup mode', async () => {
    await owner.goto(`${svc.url}/licence`);
    await owner.getByRole('button', { name: 'Remove licence…' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Confirm removing the licence' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('delayed, not lost');
    await shoot(owner, '87-licence-remove-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await status()).mode).not.toBe('setup');
    await owner.getByRole('button', { name: 'Remove licence…' }).click();
    await dialog.getByRole('button', { name: 'Remove the licence' }).click();
    await owner.getByText('No licence').waitFor();
    expect((await status()).mode).toBe('setup');
    expect((await status()).licence).toBeNull();
  });
});

describe('a mounted licence file', () => {
  it('shows the file; install and remove are disabled with why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'licence-mounted-'));
    const file = join(dir, 'licence.json');
    writeFileSync(file, here({ serial: 9 }));
    let mounted: (Proc & { adminToken: string }) | undefined;
    try {
      mounted = await startService({ SVC_TRIAL: '0', SVC_LICENCE: file });
      const p = await browser.newPage({ viewport: { width: 1366, height: 900 } });
      await signInWithAdminToken(p, `${mounted.url}/licence`, mounted.adminToken);
      const summary = p.getByLabel('licence in force');
      await summary.waitFor();
      expect(await summary.textContent()).toContain(`the file ${file} (SVC_LICENCE)`);
      expect(await p.getByRole('button', { name: 'Install licence' }).isDisabled()).toBe(true);
      await p.getByText(`The licence is managed as the file ${file} (SVC_LICENCE)`).waitFor();
      expect(await p.getByRole('button', { name: 'Remove licence…' }).isDisabled()).toBe(true);
      await p
        .getByText(`The licence is managed as the file ${file}: remove that file instead.`)
        .waitFor();
      await shoot(p, '88-licence-mounted');
      await p.close();
    } finally {
      await mounted?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The shapes of licence.md §3.7, answered in the browser: the service on main has no
// /v1/licence/installs routes yet, and the page must work the day it has.
const NEW_FP = 'PQRS-TUVW-XYZ2-3456-7ABC-DEFG';
const REQUEST_TEXT = [
  '-----BEGIN SVC INSTALL REQUEST-----',
  'Label: dr-site-b',
  `Fingerprint: ${NEW_FP}`,
  'Purpose: dr',
  'Code: 418 207',
  '',
  'eyJmb3JtYXQiOiJzdmMtaW5zdGFsbC1yZXF1ZXN0LzEiLCJyZXFfaWQiOiIwMUpE',
  '.sig=c2lnbmF0dXJl',
  '-----END SVC INSTALL REQUEST-----',
].join('\n');
const GRANT_TEXT = '-----BEGIN SVC INSTALL GRANT-----\nZ3JhbnQ\n-----END SVC INSTALL GRANT-----';

function installsView(onLicence: boolean, can: Record<string, { allowed: boolean; why?: string }>) {
  return {
    this: {
      fingerprint: onLicence ? THIS : NEW_FP,
      kind: 'machine-id',
      label: onLicence ? 'prod' : null,
      role: onLicence ? 'production' : null,
      on_licence: onLicence,
      vouched_until: null,
    },
    installs: [
      {
        fingerprint: THIS,
        label: 'prod',
        role: 'production',
        added_at: '2026-11-01T10:00:00.000Z',
        via: 'authority',
      },
      {
        fingerprint: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF',
        label: 'lab',
        role: 'lab',
        added_at: '2026-11-02T10:00:00.000Z',
        via: 'vouch',
        valid_until: '2027-01-01T00:00:00.000Z',
      },
    ],
    history: [
      {
        seq: 12,
        ts: '2026-11-02T10:00:00.000Z',
        type: 'licence.install.vouched',
        actor: 'ann',
        data: { fingerprint: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF', result: 'granted' },
      },
    ],
    limit: { installs: 10, used: 2 },
    candidate: onLicence ? null : { fingerprint: NEW_FP },
    outgoing: onLicence
      ? []
      : [
          {
            req_id: '01JDREQ',
            fingerprint: NEW_FP,
            purpose: 'dr',
            status: 'open',
            expires_at: '2026-12-05T10:00:00.000Z',
          },
        ],
    can,
  };
}

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

async function routed(
  p: Page,
  view: unknown,
  posts: Record<string, (body: Record<string, unknown>) => [number, unknown]>,
) {
  const sent: { path: string; body: Record<string, unknown> }[] = [];
  await p.route('**/v1/licence/installs**', async (route) => {
    const url = new URL(route.request().url());
    if (route.request().method() === 'GET') return json(route, 200, view);
    const body = (route.request().postDataJSON() ?? {}) as Record<string, unknown>;
    sent.push({ path: url.pathname, body });
    const answer = posts[url.pathname.replace('/v1/licence/installs/', '')];
    if (answer === undefined) return json(route, 404, { error: 'not_found', message: 'no route' });
    const [code, out] = answer(body);
    return json(route, code, out);
  });
  return sent;
}

describe('the installs section and the exchange (answers routed in the browser)', () => {
  const all = { allowed: true };

  it('on the new install: ask shows the code large and the text to copy; poll says where it stands', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    contexts.push(ctx);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    const n = await ctx.newPage();
    const sent = await routed(
      n,
      installsView(false, {
        ask: all,
        poll: all,
        look: { allowed: false, why: 'this install is not on the licence' },
        vouch: { allowed: false, why: 'this install is not on the licence' },
        remove: { allowed: false, why: 'this install is not on the licence' },
      }),
      {
        ask: () => [200, { code: '418 207', text: REQUEST_TEXT, req_id: '01JDREQ' }],
        poll: () => [
          200,
          {
            requests: [
              {
                req_id: '01JDREQ',
                status: 'pending',
                why: 'waiting for an install on the licence to vouch',
              },
            ],
          },
        ],
      },
    );
    await signInWithAdminToken(n, `${svc.url}/licence`, svc.adminToken);
    await n.getByRole('heading', { name: /^Installs/ }).waitFor();
    expect(await n.getByRole('heading', { name: /^Installs/ }).textContent()).toContain('2 of 10');
    await n.getByText('! no: ask to be added below').waitFor();
    await n.getByRole('table', { name: 'requests' }).getByText('01JDREQ').waitFor();
    const ask = n.getByRole('form', { name: 'Ask to be added' });
    await ask.getByLabel('Purpose').selectOption('dr');
    await ask.getByLabel('Label (optional, e.g. dr-site-b)').fill('dr-site-b');
    await ask.getByRole('button', { name: 'Ask to be added' }).click();
    await n.getByLabel('request code').filter({ hasText: '418 207' }).waitFor();
    expect(sent[0]).toEqual({
      path: '/v1/licence/installs/ask',
      body: { purpose: 'dr', label: 'dr-site-b' },
    });
    const carried = n.getByLabel('Request text to carry to an install on the licence');
    expect(await carried.inputValue()).toBe(REQUEST_TEXT);
    await n.getByRole('button', { name: 'Copy text' }).click();
    await n.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await n.evaluate('navigator.clipboard.readText()')).toBe(REQUEST_TEXT);
    // Look and vouch belong to an install on the licence: disabled here, with why.
    expect(await n.getByRole('button', { name: 'Look at the request' }).isDisabled()).toBe(true);
    await n.getByRole('button', { name: 'Where does my request stand?' }).click();
    await n.getByRole('list', { name: 'request state' }).getByText('pending').waitFor();
    await shoot(n, '89-licence-ask');
  });

  it('on an install on the licence: look shows the digits and checks; a wrong code is refused, the right one grants', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    contexts.push(ctx);
    const e = await ctx.newPage();
    let vouches = 0;
    await routed(
      e,
      installsView(true, {
        ask: { allowed: false, why: 'this install is already on the licence' },
        look: all,
        vouch: all,
        poll: { allowed: false, why: 'no request asked here' },
        remove: all,
      }),
      {
        look: (body) => [
          200,
          String(body['text']).includes('EXPIRED')
            ? {
                request: null,
                digits: null,
                checks: [{ name: 'not_expired', ok: false, detail: 'expired 2 d ago' }],
                would: 'refused',
                why: 'the request has expired',
              }
            : {
                request: {
                  req_id: '01JDREQ',
                  fingerprint: NEW_FP,
                  kind: 'machine-id',
                  label: 'dr-site-b',
                  purpose: 'dr',
                  version: '0.1.0',
                  created_at: '2026-11-28T10:00:00.000Z',
                  expires_at: '2026-12-05T10:00:00.000Z',
                },
                digits: '418 207',
                checks: [
                  { name: 'armour', ok: true },
                  { name: 'signature', ok: true },
                  { name: 'not_expired', ok: true, detail: '6 d 23 h left' },
                  { name: 'seat_available', ok: true, detail: '2 of 10 installs used' },
                ],
                would: 'granted',
                why: 'a seat is free and self-service vouching allows it',
              },
        ],
        vouch: (body) => {
          vouches += 1;
          return body['code'] === '418207' || body['code'] === '418 207'
            ? [200, { result: 'granted', text: GRANT_TEXT }]
            : [
                409,
                {
                  error: 'code_mismatch',
                  message: 'the code does not match this request (attempt 1 of 5)',
                },
              ];
        },
      },
    );
    await signInWithAdminToken(e, `${svc.url}/licence`, svc.adminToken);
    const look = e.getByRole('form', { name: 'Look at a request' });
    // A request no check lets through: no Vouch form, and why.
    await look.getByLabel('Request text from the new install').fill(`${REQUEST_TEXT}\nEXPIRED`);
    await look.getByRole('button', { name: 'Look at the request' }).click();
    await e
      .getByRole('alert')
      .filter({ hasText: 'This request cannot be vouched for: the request has expired.' })
      .waitFor();
    expect(await e.getByRole('form', { name: 'Vouch' }).count()).toBe(0);
    await look.getByLabel('Request text from the new install').fill(REQUEST_TEXT);
    await look.getByRole('button', { name: 'Look at the request' }).click();
    await e.getByLabel('digits to compare').filter({ hasText: '418 207' }).waitFor();
    const checks = await e
      .getByRole('list', { name: 'checks' })
      .getByRole('listitem')
      .allTextContents();
    expect(checks).toContain('✓ not expired — 6 d 23 h left');
    expect(await e.getByLabel('request checked').textContent()).toContain('DEFG');
    const vouch = e.getByRole('form', { name: 'Vouch' });
    // Until six digits are typed, Vouch says why it waits.
    expect(await vouch.getByRole('button', { name: 'Vouch' }).isDisabled()).toBe(true);
    await vouch.getByLabel('Code read out from the new install').fill('418 208');
    await vouch.getByRole('button', { name: 'Vouch' }).click();
    await e.getByRole('alert').filter({ hasText: 'the code does not match' }).waitFor();
    await shoot(e, '90-licence-look-mismatch');
    await vouch.getByLabel('Code read out from the new install').fill('418207');
    await vouch.getByRole('button', { name: 'Vouch' }).click();
    const result = e.getByRole('status', { name: 'vouch result' });
    await result.getByText('✓ Granted.').waitFor();
    expect(
      await result.getByLabel('Answer to carry back and paste on the new install').inputValue(),
    ).toBe(GRANT_TEXT);
    expect(vouches).toBe(2);
    await shoot(e, '91-licence-vouched');
  });

  it('a viewer sees every exchange button disabled with why; the usage statement downloads for an admin only', async () => {
    const v = await pageWith(viewerToken);
    const why = 'needs the admin role';
    await routed(
      v,
      installsView(true, {
        ask: { allowed: false, why },
        look: { allowed: false, why },
        vouch: { allowed: false, why },
        poll: { allowed: false, why },
        remove: { allowed: false, why },
      }),
      {},
    );
    await v.goto(`${svc.url}/licence`);
    await v.getByRole('heading', { name: /^Installs/ }).waitFor();
    for (const name of ['Ask to be added', 'Look at the request', 'Where does my request stand?']) {
      expect(await v.getByRole('button', { name }).isDisabled(), name).toBe(true);
    }
    expect(await v.getByRole('button', { name: 'Remove…' }).first().isDisabled()).toBe(true);
    expect(await v.getByText(why).count()).toBeGreaterThan(3);
    expect(await v.getByRole('button', { name: 'Download usage statement' }).isDisabled()).toBe(
      true,
    );
    await shoot(v, '92-licence-installs-viewer');

    // The real statement: it needs a licence in force (the tests above removed theirs).
    if ((await status()).licence === null)
      expect(
        (await http(svc.adminToken, 'POST', '/v1/licence', { licence: here({ serial: 9 }) }))
          .status,
      ).toBe(200);
    const a = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await routed(a, installsView(true, { remove: all }), {});
    await signInWithAdminToken(a, `${svc.url}/licence`, svc.adminToken);
    const download = a.waitForEvent('download');
    await a.getByRole('button', { name: 'Download usage statement' }).click();
    expect((await download).suggestedFilename()).toMatch(/^usage-statement-[\d-]+\.json$/);
    await a
      .getByRole('status')
      .filter({ hasText: /Saved usage-statement-/ })
      .waitFor();
    await a.close();
  });
});
