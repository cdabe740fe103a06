// Pairing by a six-digit code on the Keychain page, in a real Chromium against two real
// bundled services: A, made the home through the API, opens pairing from its page; B, in no
// keychain, asks A to pair from its page with A's address. Both pages show the same six digits
// (3 + 3); a wrong code typed on B's page is refused in words and the request shows failed on
// both; B asks again, the codes are typed on both pages (A's into B as "123 456", B's into A as
// "123456"), and B's page ends as a member of A. A's page shows B unlicensed until Approve
// seat. A viewer sees every pairing control disabled, naming the admin role; nothing scrolls
// sideways at 390 px.
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
  home_fp: string | null;
  members: { label: string; fingerprint: string; licensed: boolean; via: string }[];
  pairing: {
    window: { open: boolean } | null;
    requests: { request_id: string; label: string; state: string; code: string | null }[];
  } | null;
  joining: { request_id: string; state: string; code: string | null } | null;
}

type Svc = Proc & { adminToken: string };

let a: Svc;
let b: Svc;
/** B, stopped after the browser and A. */
const services = stopStack();
let browser: Browser;
let bench: ConsoleBench | undefined;
/** A's console (the home) and B's (the install asking to pair), as the admin token. */
let pageA: Page;
let pageB: Page;
/** A viewer on A. */
let viewerA: Page;
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

/** A disabled control whose title names the admin role. */
async function offForViewer(p: Page, name: string): Promise<void> {
  const button = p.getByRole('button', { name, exact: true });
  await button.waitFor();
  expect(await button.isDisabled(), name).toBe(true);
  expect(await button.getAttribute('title'), name).toMatch(/needs the admin role/);
}

const roleLine = (p: Page) => p.getByLabel('keychain role');
const windowLine = (p: Page) => p.getByRole('status', { name: 'pairing window' });
const card = (p: Page, label: string) => p.getByRole('article', { name: `${label} asks to pair` });
const joining = (p: Page) => p.getByRole('group', { name: 'pairing with the home' });
const joinForm = (p: Page) => p.getByRole('form', { name: 'Join a home by code' });
const lastRequest = (p: Page) => p.getByRole('status', { name: 'the last pairing request' });
const endedList = (p: Page) => p.getByRole('list', { name: 'ended pairing requests' });
const memberRow = (p: Page, label: string) =>
  p.getByRole('table', { name: 'members' }).getByRole('row').filter({ hasText: label });

/** The six digits a page shows, and that they are printed 3 + 3. */
async function digitsOf(p: Page, label: string): Promise<string> {
  const code = p.getByLabel(label, { exact: true });
  await code.waitFor();
  const text = ((await code.textContent()) ?? '').trim();
  expect(text).toMatch(/^\d{3} \d{3}$/);
  return text.replace(/\s/g, '');
}

/** A code that is not `code`. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

beforeAll(async () => {
  bench = await startConsole({ SVC_INSTANCE: 'dc-a' });
  ({ svc: a, browser } = bench);
  b = services.keep(await startService({ SVC_INSTANCE: 'dc-b' }));
  const home = await httpAt<View>(a.url, a.adminToken, 'POST', '/v1/keychain/home', {
    label: 'DC A',
  });
  expect(home.status).toBe(200);
  aFp = home.body.fingerprint;
  bFp = (await view(b)).fingerprint;
  pageA = await newPage();
  pageB = await newPage();
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await services.stopAll();
  await bench?.stop();
});

describe('pairing by code on the Keychain page', () => {
  it('a viewer sees the pairing controls disabled, naming the admin role', async () => {
    viewerA = await viewerOn(a, 'a');
    await roleLine(viewerA).getByText('⌂ Home').waitFor();
    await windowLine(viewerA).getByText('○ Pairing closed').waitFor();
    await offForViewer(viewerA, 'Open pairing for 10 minutes');
    await viewerA
      .getByText('Pairing installs needs the admin role; you are signed in as viewer.')
      .waitFor();
    await shoot(viewerA, '70-keychain-pairing-viewer');
    expect(await widthAtPhone(viewerA)).toBeLessThanOrEqual(390);

    const viewerB = await viewerOn(b, 'b');
    await roleLine(viewerB).getByText('○ Not in a keychain').waitFor();
    await offForViewer(viewerB, 'Ask the home to pair');
    expect(await joinForm(viewerB).getByLabel('Address of the home').isDisabled()).toBe(true);
    await viewerB
      .getByText('Pairing with a home needs the admin role; you are signed in as viewer.')
      .waitFor();
  });

  it('the home opens pairing for 10 minutes from its page; an install in no keychain offers joining by code beside making the home', async () => {
    await signInWithAdminToken(pageA, `${a.url}/keychain`, a.adminToken);
    await roleLine(pageA).getByText('⌂ Home').waitFor();
    await windowLine(pageA).getByText('○ Pairing closed').waitFor();
    // The address an install asks at is this console's.
    await pageA.getByText(a.url, { exact: true }).waitFor();
    await pageA.getByRole('button', { name: 'Open pairing for 10 minutes' }).click();
    await windowLine(pageA).getByText('● Pairing open').waitFor();
    expect(await windowLine(pageA).textContent()).toMatch(/until .*install in no keychain/);
    expect(await pageA.getByRole('button', { name: 'Open pairing for 10 minutes' }).count()).toBe(
      0,
    );
    expect((await view(a)).pairing?.window?.open).toBe(true);
    await shoot(pageA, '71-keychain-pairing-open');
    expect(await widthAtPhone(pageA)).toBeLessThanOrEqual(390);

    await signInWithAdminToken(pageB, `${b.url}/keychain`, b.adminToken);
    await roleLine(pageB).getByText('○ Not in a keychain').waitFor();
    await joinForm(pageB).waitFor();
    await pageB.getByRole('button', { name: 'Make this install the home' }).waitFor();
    await shoot(pageB, '72-keychain-join-form');
    expect(await widthAtPhone(pageB)).toBeLessThanOrEqual(390);
  });

  it('B asks A to pair from its page: both pages show the same six digits, with the other side named', async () => {
    const form = joinForm(pageB);
    await form.getByLabel('Address of the home').fill(a.url);
    await form.getByLabel('This install’s label').fill('DC B');
    await form.getByRole('button', { name: 'Ask the home to pair' }).click();
    await joining(pageB).waitFor();
    const onB = await digitsOf(pageB, 'code this install shows');
    const group = (await joining(pageB).textContent()) ?? '';
    expect(group).toContain('DC A');
    expect(group).toContain(aFp.slice(0, 12));
    expect(group).toContain('Compare: the home should show the same six digits');
    // The make-the-home form steps aside while a request is open.
    expect(await pageB.getByRole('button', { name: 'Make this install the home' }).count()).toBe(0);

    // A's page learns of the request without a reload.
    await card(pageA, 'DC B').waitFor({ timeout: 20_000 });
    const onA = await digitsOf(pageA, 'code this home shows for DC B');
    expect(onA).toBe(onB);
    expect(await card(pageA, 'DC B').textContent()).toContain(bFp.slice(0, 12));
    expect(await card(pageA, 'DC B').textContent()).toContain('— type it on DC B');
    const api = await view(b);
    expect(api.joining?.code).toBe(onB);
    // The codes are for admins: the viewer's page (the first test) gets them as null.
    const peek = await person(a, `peek@lab.test`, 'Pia Peek', 'viewer');
    const seen = await httpAt<{ pairing: { requests: { code: string | null }[] } }>(
      a.url,
      peek,
      'GET',
      '/v1/keychain',
    );
    expect(seen.status).toBe(200);
    expect(seen.body.pairing.requests.map((r) => r.code)).toEqual(
      seen.body.pairing.requests.map(() => null),
    );
    expect(seen.body.pairing.requests.length).toBeGreaterThan(0);
    await viewerA.reload();
    await card(viewerA, 'DC B').getByText('The six digits are shown to admins only.').waitFor();
    await shoot(pageA, '73-keychain-pairing-code-home');
    await shoot(pageB, '74-keychain-pairing-code-joiner');
    expect(await widthAtPhone(pageA)).toBeLessThanOrEqual(390);
    expect(await widthAtPhone(pageB)).toBeLessThanOrEqual(390);

    // A viewer on the home sees the card, its code field and button disabled.
    await viewerA.reload();
    await card(viewerA, 'DC B').waitFor();
    expect(await card(viewerA, 'DC B').getByLabel('Code shown on DC B').isDisabled()).toBe(true);
    await offForViewer(viewerA, 'Confirm the code of DC B');
  });

  it('a wrong code typed on B is refused in words; the request shows failed on both pages; B asks again', async () => {
    const first = (await view(b)).joining?.request_id;
    const code = await digitsOf(pageA, 'code this home shows for DC B');
    const w = wrong(code);
    const group = joining(pageB);
    await group.getByLabel('Code shown on the home').fill(`${w.slice(0, 3)} ${w.slice(3)}`);
    await group.getByRole('button', { name: 'Confirm the code of the home' }).click();
    await pageB.getByRole('alert').filter({ hasText: 'does not match' }).waitFor();
    await lastRequest(pageB).getByText('✗ failed').waitFor();
    expect(await lastRequest(pageB).textContent()).toContain('A wrong code was typed');
    expect(await joining(pageB).count()).toBe(0);
    await shoot(pageB, '75-keychain-pairing-wrong-code');

    // The home shows the request ended, in words.
    await card(pageA, 'DC B').waitFor({ state: 'detached', timeout: 20_000 });
    const ended = endedList(pageA).getByRole('listitem').filter({ hasText: 'DC B' });
    await ended.getByText('✗ failed').waitFor();
    expect(await ended.textContent()).toContain('a wrong code ended it');

    // Asking again: the form kept the address and the label.
    const form = joinForm(pageB);
    expect(await form.getByLabel('Address of the home').inputValue()).toBe(a.url);
    await form.getByRole('button', { name: 'Ask the home to pair' }).click();
    await joining(pageB).waitFor();
    // A new request's refusal is gone with the old one.
    expect(await pageB.getByRole('alert').filter({ hasText: 'does not match' }).count()).toBe(0);
    const second = (await view(b)).joining;
    expect(second?.state).toBe('open');
    expect(second?.request_id).not.toBe(first);
    await card(pageA, 'DC B').waitFor({ timeout: 20_000 });
    expect(await digitsOf(pageA, 'code this home shows for DC B')).toBe(
      await digitsOf(pageB, 'code this install shows'),
    );
  });

  it('the codes typed on both pages make B a member of A; A approves its licence seat', async () => {
    const homeCode = await digitsOf(pageA, 'code this home shows for DC B');
    const joinerCode = await digitsOf(pageB, 'code this install shows');
    // A's code into B, spaced as it reads.
    const group = joining(pageB);
    await group
      .getByLabel('Code shown on the home')
      .fill(`${homeCode.slice(0, 3)} ${homeCode.slice(3)}`);
    await group.getByRole('button', { name: 'Confirm the code of the home' }).click();
    await group.getByText("The home's code was typed here").waitFor();
    await card(pageA, 'DC B').getByText('✓ This home’s code was typed on DC B').waitFor({
      timeout: 20_000,
    });

    // B's code into A, as six digits.
    const c = card(pageA, 'DC B');
    await c.getByLabel('Code shown on DC B').fill(joinerCode);
    await c.getByRole('button', { name: 'Confirm the code of DC B' }).click();
    await c.waitFor({ state: 'detached' });
    await endedList(pageA)
      .getByRole('listitem')
      .filter({ hasText: 'DC B' })
      .getByText('✓ added')
      .waitFor();

    // A's page: B a member without a licence seat until approved.
    const row = memberRow(pageA, 'DC B');
    await row.getByText('◇ unlicensed').waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toContain('paired by code');
    const entry = (await view(a)).members.find((m) => m.fingerprint === bFp);
    expect(entry).toMatchObject({ licensed: false });
    expect(entry?.via).toMatch(/^pairing:pr_/);
    await shoot(pageA, '76-keychain-pairing-member-unlicensed');
    expect(await widthAtPhone(pageA)).toBeLessThanOrEqual(390);

    // B's page (after A's: the home adds it first): the joiner hears it from its home, the page from the joiner.
    await roleLine(pageB).getByText('◆ Member of DC A').waitFor({ timeout: 30_000 });
    const b2 = await view(b);
    expect(b2).toMatchObject({ role: 'member', home_fp: aFp });
    await shoot(pageB, '77-keychain-pairing-joined');
    expect(await widthAtPhone(pageB)).toBeLessThanOrEqual(390);

    await viewerA.reload();
    await memberRow(viewerA, 'DC B').getByText('◇ unlicensed').waitFor();
    await offForViewer(viewerA, 'Approve seat');

    await row.getByRole('button', { name: 'Approve seat' }).click();
    await until('the unlicensed badge to go', async () =>
      (await row.getByText('◇ unlicensed').count()) === 0 ? true : undefined,
    );
    expect(await row.getByRole('button', { name: 'Approve seat' }).count()).toBe(0);
    expect((await view(a)).members.find((m) => m.fingerprint === bFp)?.licensed).toBe(true);
    await shoot(pageA, '78-keychain-pairing-seat-approved');
    expect(await widthAtPhone(pageA)).toBeLessThanOrEqual(390);
  });
});
