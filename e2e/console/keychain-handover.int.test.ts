// Handing the home over and taking over on the Keychain page, in a real Chromium against two
// real bundled services: A, made the home through the API, and B, joined to it with a site key
// (SVC_KEYCHAIN_JOIN). A viewer sees Hand the home over… disabled naming the admin role and
// Take over as home… naming the owner role. On B, taking over (the admin token is the owner)
// is refused in the server's words: the home has not been silent for 15 minutes. On A's page
// the home is offered to B after a confirmation naming B and its full fingerprint; the six
// digits show 3 + 3; B's page, after Sync now, shows the offer; a wrong code typed there is
// refused and voids the offer, which A's page says in words; an offer withdrawn on A says so;
// offered again, the right code typed on B's page makes B the home at epoch 2 and A's page a
// member of B. Nothing scrolls sideways at 390 px (screenshots 80-88).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, stopStack, until, type Proc } from '../lab/processes.js';
import {
  shoot,
  signInWithAdminToken,
  startConsole,
  type ConsoleBench,
  widthAtPhone,
} from './browser.js';

type Json = Record<string, unknown>;
interface View {
  role: string;
  fingerprint: string;
  epoch: number | null;
  home_fp: string | null;
  members: { label: string; fingerprint: string }[];
  handover: { offer_id: string; to: string; state: string; code: string | null } | null;
}

type Svc = Proc & { adminToken: string };

let a: Svc;
let b: Svc;
/** B, stopped after the browser and A. */
const services = stopStack();
let browser: Browser;
let bench: ConsoleBench | undefined;
/** A's console (the home) and B's (its member), as the admin token (the owner). */
let pageA: Page;
let pageB: Page;
let aFp = '';
let bFp = '';
const contexts: BrowserContext[] = [];

async function httpAt<T = Json>(
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

const view = async (p: Svc): Promise<View> =>
  (await httpAt<View>(p.url, p.adminToken, 'GET', '/v1/keychain')).body;

/** A person of `role` with a session on `svc` (the first one bootstrapped is the owner). */
async function person(svc: Svc, email: string, name: string, role: string): Promise<string> {
  const made = await httpAt<{ id: string }>(svc.url, svc.adminToken, 'POST', '/v1/users', {
    email,
    name,
    role,
  });
  expect(made.status).toBe(201);
  const boot = await httpAt<{ token: string }>(
    svc.url,
    svc.adminToken,
    'POST',
    '/v1/auth/bootstrap',
    { email, name },
  );
  expect(boot.status).toBe(200);
  if (role !== 'owner') {
    const put = await httpAt(svc.url, svc.adminToken, 'PUT', `/v1/users/${made.body.id}`, {
      role,
    });
    expect(put.status).toBe(200);
  }
  return boot.body.token;
}

async function newPage(): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  contexts.push(ctx);
  return ctx.newPage();
}

/** A page of `svc`'s console signed in as a viewer (an owner is made first: one must stay). */
async function viewerOn(svc: Svc, tag: string): Promise<Page> {
  const p = await newPage();
  await p.goto(`${svc.url}/`);
  await person(svc, `olive-${tag}@lab.test`, `Olive Owner ${tag}`, 'owner');
  const token = await person(svc, `vic-${tag}@lab.test`, `Vic Viewer ${tag}`, 'viewer');
  await p.evaluate(`localStorage.setItem('svc.session', ${JSON.stringify(token)})`);
  await p.goto(`${svc.url}/keychain`);
  return p;
}

/** A disabled control whose title names the role it needs. */
async function offFor(p: Page, name: string, role: string): Promise<void> {
  const button = p.getByRole('button', { name, exact: true }).first();
  await button.waitFor();
  expect(await button.isDisabled(), name).toBe(true);
  expect(await button.getAttribute('title'), name).toMatch(
    new RegExp(`needs the ${role} role; you are signed in as viewer`),
  );
}

/** ABCD-EFGH-…: how the page prints a fingerprint. */
const grouped = (fp: string): string => (fp.match(/.{1,4}/g) ?? []).join('-');

const roleLine = (p: Page) => p.getByLabel('keychain role');
const facts = (p: Page) => p.getByLabel('this install in the keychain');
const memberRow = (p: Page, label: string) =>
  p.getByRole('table', { name: 'members' }).getByRole('row').filter({ hasText: label });
const offered = (p: Page) => p.getByRole('group', { name: 'home offered to DC B' });
const offer = (p: Page) => p.getByRole('group', { name: 'handover offered to this install' });
const lastHandover = (p: Page) => p.getByRole('status', { name: 'the last handover' });
const syncNow = (p: Page) => p.getByRole('button', { name: 'Sync now' }).click();

/** The six digits A's page shows for B, and that they are printed 3 + 3. */
async function codeOnA(): Promise<string> {
  const code = pageA.getByLabel('handover code for DC B', { exact: true });
  await code.waitFor();
  const text = ((await code.textContent()) ?? '').trim();
  expect(text).toMatch(/^\d{3} \d{3}$/);
  return text.replace(/\s/g, '');
}

/** On A's page: Hand the home over… on B's row, and the confirmation's Offer. */
async function offerToB(): Promise<void> {
  await memberRow(pageA, 'DC B').getByRole('button', { name: 'Hand the home over…' }).click();
  const dialog = pageA.getByRole('dialog', { name: 'Hand the home over to DC B?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Offer the home to DC B' }).click();
  await offered(pageA).waitFor();
}

/** A code that is not `code`. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

beforeAll(async () => {
  bench = await startConsole({ SVC_INSTANCE: 'dc-a' });
  ({ svc: a, browser } = bench);
  const home = await httpAt<View>(a.url, a.adminToken, 'POST', '/v1/keychain/home', {
    label: 'DC A',
  });
  expect(home.status).toBe(200);
  aFp = home.body.fingerprint;
  const made = await httpAt<{ keys: { key: string }[] }>(
    a.url,
    a.adminToken,
    'POST',
    '/v1/keychain/site-keys',
    { labels: ['dc-b'] },
  );
  expect(made.status).toBe(200);
  b = services.keep(
    await startService({
      SVC_INSTANCE: 'dc-b',
      SVC_KEYCHAIN_JOIN: a.url,
      SVC_KEYCHAIN_SITE_KEY: made.body.keys[0]?.key ?? '',
    }),
  );
  bFp = (
    await until('dc-b to join', async () => {
      const v = await view(b);
      return v.role === 'member' ? v : undefined;
    })
  ).fingerprint;
  const named = await httpAt(a.url, a.adminToken, 'POST', '/v1/keychain/rename', {
    label: 'DC B',
    fingerprint: bFp,
  });
  expect(named.status).toBe(200);
  expect((await httpAt(b.url, b.adminToken, 'POST', '/v1/keychain/pull', {})).status).toBe(200);
  pageA = await newPage();
  pageB = await newPage();
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await services.stopAll();
  await bench?.stop();
});

describe('handover and take-over on the Keychain page', () => {
  it('a viewer sees Hand the home over… naming the admin role and Take over as home… naming the owner role', async () => {
    const viewerA = await viewerOn(a, 'a');
    await roleLine(viewerA).getByText('⌂ Home').waitFor();
    await memberRow(viewerA, 'DC B').waitFor();
    await offFor(viewerA, 'Hand the home over…', 'admin');
    await viewerA
      .getByText('Handing the home over needs the admin role; you are signed in as viewer.')
      .waitFor();
    await shoot(viewerA, '80-keychain-handover-viewer-home');
    expect(await widthAtPhone(viewerA)).toBeLessThanOrEqual(390);

    // B's people are the home's (the people part): B keeps its own here, to make its viewer.
    const own = await httpAt(b.url, b.adminToken, 'POST', '/v1/keychain/own', {
      part: 'people',
      own: true,
    });
    expect(own.status).toBe(200);
    const viewerB = await viewerOn(b, 'b');
    await roleLine(viewerB).getByText('◆ Member of DC A').waitFor();
    await offFor(viewerB, 'Take over as home…', 'owner');
    await viewerB
      .getByText('Taking over as home needs the owner role; you are signed in as viewer.')
      .waitFor();
    await shoot(viewerB, '81-keychain-takeover-viewer-member');
    expect(await widthAtPhone(viewerB)).toBeLessThanOrEqual(390);
  });

  it('taking over on a member whose home answers is refused in the server’s words', async () => {
    await signInWithAdminToken(pageB, `${b.url}/keychain`, b.adminToken);
    await roleLine(pageB).getByText('◆ Member of DC A').waitFor();
    const section = pageB.getByRole('region', { name: 'Take over as home' });
    expect(await section.textContent()).toContain('failed to answer this install for 15 minutes');
    await section.getByRole('button', { name: 'Take over as home…' }).click();
    const dialog = pageB.getByRole('dialog', { name: 'Take over as home?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('becomes the home at epoch 2');
    // Force is offered only after no other member could confirm the home is lost.
    expect(await dialog.getByRole('checkbox').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Take over as home', exact: true }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.getByText('a take-over needs 15 minutes of silence seen here').waitFor();
    expect(await refusal.textContent()).toMatch(/the home has failed to answer this install for/);
    expect(await dialog.getByRole('checkbox').count()).toBe(0);
    await shoot(pageB, '82-keychain-takeover-refused');
    expect(await widthAtPhone(pageB)).toBeLessThanOrEqual(390);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await view(b)).role).toBe('member');
  });

  it('the home offers itself to B after a confirmation naming B in full; the code shows 3 + 3', async () => {
    await signInWithAdminToken(pageA, `${a.url}/keychain`, a.adminToken);
    await roleLine(pageA).getByText('⌂ Home').waitFor();
    await memberRow(pageA, 'DC B').getByRole('button', { name: 'Hand the home over…' }).click();
    const dialog = pageA.getByRole('dialog', { name: 'Hand the home over to DC B?' });
    await dialog.waitFor();
    const text = (await dialog.textContent()) ?? '';
    expect(text).toContain(grouped(bFp));
    expect(text).toContain('DC B becomes the home at epoch 2 and this install becomes a member');
    await shoot(pageA, '83-keychain-handover-confirm');
    expect(await widthAtPhone(pageA)).toBeLessThanOrEqual(390);
    await dialog.getByRole('button', { name: 'Offer the home to DC B' }).click();
    await offered(pageA).waitFor();
    const code = await codeOnA();
    expect((await view(a)).handover).toMatchObject({ to: bFp, state: 'open', code });
    expect(await offered(pageA).textContent()).toContain('— type it on DC B');
    await shoot(pageA, '84-keychain-handover-code');
    expect(await widthAtPhone(pageA)).toBeLessThanOrEqual(390);
  });

  it('B sees the offer after Sync now; a wrong code is refused and voids it, on both pages', async () => {
    await pageB.getByRole('region', { name: 'Handover' }).waitFor();
    await syncNow(pageB);
    await offer(pageB).waitFor();
    expect(await offer(pageB).textContent()).toContain(
      'The home offers to hand itself to this install',
    );
    await shoot(pageB, '85-keychain-handover-offered');
    expect(await widthAtPhone(pageB)).toBeLessThanOrEqual(390);

    const w = wrong(await codeOnA());
    await offer(pageB).getByLabel('Code shown on DC A').fill(w);
    await offer(pageB).getByRole('button', { name: 'Accept the home' }).click();
    await pageB.getByRole('alert').filter({ hasText: 'does not match' }).waitFor();
    expect(
      await pageB.getByRole('alert').filter({ hasText: 'does not match' }).textContent(),
    ).toContain('the offer is void');
    await offer(pageB).waitFor({ state: 'detached' });
    await shoot(pageB, '86-keychain-handover-wrong-code');

    await lastHandover(pageA).getByText('✗ void').waitFor({ timeout: 20_000 });
    expect(await lastHandover(pageA).textContent()).toContain('A wrong code was typed on DC B');
    expect(await offered(pageA).count()).toBe(0);
    expect((await view(a)).role).toBe('home');
  });

  it('an offer withdrawn on A says so', async () => {
    await offerToB();
    await offered(pageA).getByRole('button', { name: 'Withdraw' }).click();
    await lastHandover(pageA).getByText('– withdrawn').waitFor();
    expect((await view(a)).handover?.state).toBe('cancelled');
  });

  it('offered again, the right code typed on B makes B the home at epoch 2 and A its member', async () => {
    await offerToB();
    const code = await codeOnA();
    await syncNow(pageB);
    await offer(pageB).waitFor();
    // Spaced as it reads.
    await offer(pageB)
      .getByLabel('Code shown on DC A')
      .fill(`${code.slice(0, 3)} ${code.slice(3)}`);
    await offer(pageB).getByRole('button', { name: 'Accept the home' }).click();
    await roleLine(pageB).getByText('⌂ Home').waitFor({ timeout: 20_000 });
    expect(await facts(pageB).textContent()).toMatch(/Epoch2/);
    expect(await memberRow(pageB, 'DC A').textContent()).toContain('member');
    expect(await view(b)).toMatchObject({ role: 'home', epoch: 2 });
    await shoot(pageB, '87-keychain-handover-new-home');
    expect(await widthAtPhone(pageB)).toBeLessThanOrEqual(390);

    await roleLine(pageA).getByText('◆ Member of DC B').waitFor({ timeout: 30_000 });
    expect(await view(a)).toMatchObject({ role: 'member', home_fp: bFp, epoch: 2 });
    expect(await facts(pageA).textContent()).toContain(grouped(bFp));
    expect(await pageA.getByRole('button', { name: 'Hand the home over…' }).count()).toBe(0);
    await pageA.getByRole('region', { name: 'Take over as home' }).waitFor();
    await shoot(pageA, '88-keychain-handover-old-home-member');
    expect(await widthAtPhone(pageA)).toBeLessThanOrEqual(390);
    expect(aFp).not.toBe(bFp);
  });
});
