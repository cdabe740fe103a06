// Approvals, autonomy, the global halt and the policy editor from the console in a real
// Chromium against the bundled service. Two admins, Ann and Bob (added with POST /v1/users and
// signed in through the admin token's break-glass bootstrap; an owner, Olive, keeps the
// ownership): Ann asks to raise the autonomy of `payments` (POST /v1/autonomy answers 202
// with a request needing two approvers); Bob sees it on /approvals with "0 of 2 approvals",
// approves it and the quorum state becomes "1 of 2"; the top bar counts it for Bob as waiting
// for him ("Approvals (1)") until he approves, never for Ann; Ann sees why she cannot approve
// her own request (and the API answers 409 own_request); `/approvals/<id>` (the console link
// escalation sends for admin-level requests) opens the list with it pinned; the autonomy page
// shows the pending raise. Bob halts every action from the top bar (a reason is required;
// GET /v1/autonomy shows the halt and its reason; the wall says so too) and resumes. An admin saving a maintenance window that ends before it
// starts sees the service's 400 beside the policy section it names, and nothing is stored.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until, type Proc } from '../lab/processes.js';
import { shoot, signInWithAdminToken, startConsole, type ConsoleBench } from './browser.js';

interface ApprovalRequest {
  request_id: string;
  kind: string;
  status: string;
  title: string;
  service: string | null;
  quorum: number;
  requested_by: string;
  decisions: { by: string; decision: string }[];
}

interface AutonomyView {
  default: string;
  halted: null | { reason: string; by: string; at: string };
  requests: ApprovalRequest[];
}

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
const contexts: BrowserContext[] = [];
let ann: { token: string; name: string; page: Page };
let bob: { token: string; name: string; page: Page };
let admin: Page;
let raise: ApprovalRequest | undefined;

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

/** A session of a person: the admin token's break-glass bootstrap (it makes them owner). */
async function bootstrap(email: string, name: string): Promise<string> {
  const res = await http<{ token: string }>(svc.adminToken, 'POST', '/v1/auth/bootstrap', {
    email,
    name,
  });
  expect(res.status).toBe(200);
  return res.body.token;
}

/** An admin person with a session: added with POST /v1/users, signed in, role kept admin. */
async function adminPerson(email: string, name: string): Promise<string> {
  const made = await http<{ id: string; role: string }>(svc.adminToken, 'POST', '/v1/users', {
    email,
    name,
    role: 'admin',
  });
  expect(made.status).toBe(201);
  const token = await bootstrap(email, name);
  // Bootstrap made them owner; back to admin (their open session follows the change).
  const back = await http(svc.adminToken, 'PUT', `/v1/users/${made.body.id}`, { role: 'admin' });
  expect(back.status).toBe(200);
  const me = await http<{ role: string }>(token, 'GET', '/v1/me');
  expect(me.body.role).toBe('admin');
  return token;
}

/** A browser page signed in with a session token (what the sign-in page stores). */
async function pageWith(token: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  contexts.push(ctx);
  const page = await ctx.newPage();
  await page.goto(`${svc.url}/`);
  await page.evaluate(`localStorage.setItem('svc.session', ${JSON.stringify(token)})`);
  return page;
}

/** The Approvals link of the top bar: "Approvals (n)" counts what waits for this person. */
const navApprovals = (page: Page) =>
  page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: /^Approvals/ });

const autonomy = async (): Promise<AutonomyView> => {
  const res = await http<AutonomyView>(svc.adminToken, 'GET', '/v1/autonomy');
  expect(res.status).toBe(200);
  return res.body;
};

beforeAll(async () => {
  bench = await startConsole({});
  ({ svc, browser } = bench);
  // An owner who stays owner, so Ann and Bob can go back to admin.
  await bootstrap('olive@lab.test', 'Olive Owner');
  const annToken = await adminPerson('ann@lab.test', 'Ann Admin');
  const bobToken = await adminPerson('bob@lab.test', 'Bob Admin');
  ann = { token: annToken, name: 'Ann Admin', page: await pageWith(annToken) };
  bob = { token: bobToken, name: 'Bob Admin', page: await pageWith(bobToken) };
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  contexts.push(ctx);
  admin = await ctx.newPage();
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await bench?.stop();
});

describe('a raise of autonomy needs two approvers', () => {
  it('answers 202 with a pending request when Ann raises payments to L1', async () => {
    const res = await http<{ request?: ApprovalRequest }>(ann.token, 'POST', '/v1/autonomy', {
      service: 'payments',
      level: 'L1',
    });
    expect(res.status).toBe(202);
    raise = res.body.request;
    expect(raise).toMatchObject({ kind: 'autonomy', status: 'pending', quorum: 2 });
  });

  it('lists the request on /approvals with its quorum state', async () => {
    if (raise === undefined) throw new Error('no request: the raise was refused');
    const page = bob.page;
    await page.goto(`${svc.url}/approvals`);
    const card = page.getByRole('article', { name: raise.title });
    await card.waitFor();
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('payments');
    expect(text).toContain(raise.requested_by);
    expect(text).toContain('0 of 2 approvals');
    // It waits for Bob: "Waiting for you" comes first, and the top bar counts it.
    const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
    expect(headings[0]).toMatch(/^Waiting for you/);
    await navApprovals(page).filter({ hasText: 'Approvals (1)' }).waitFor();
    // The status facet filters through the URL.
    await page.getByRole('checkbox', { name: /pending/ }).check();
    await page.waitForURL(/status=pending/);
    await card.waitFor();
    await shoot(page, '70-approvals');
  });

  it('changes the quorum state to 1 of 2 when Bob approves', async () => {
    if (raise === undefined) throw new Error('no request: the raise was refused');
    const card = bob.page.getByRole('article', { name: raise.title });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    // Approving asks once more, naming what is approved.
    const confirm = card.getByRole('group', { name: 'Confirm approval' });
    expect(await confirm.textContent()).toContain(raise.title);
    await confirm.getByRole('button', { name: 'Confirm approval' }).click();
    await card.locator('.quorum').filter({ hasText: '1 of 2 approvals' }).waitFor();
    expect(await card.textContent()).toContain(`approved by ${bob.name}`);
    // Bob counts once: Approve is now disabled with the reason.
    expect(await card.getByRole('button', { name: 'Approve', exact: true }).isDisabled()).toBe(
      true,
    );
    const after = await http<ApprovalRequest>(
      svc.adminToken,
      'GET',
      `/v1/approvals/${raise.request_id}`,
    );
    expect(after.body.status).toBe('pending');
    expect(after.body.decisions.filter((d) => d.decision === 'approve')).toHaveLength(1);
    // Approved by Bob: nothing waits for him any more.
    await until('the count to go', async () =>
      (await navApprovals(bob.page).textContent())?.trim() === 'Approvals' ? true : undefined,
    );
    await card.scrollIntoViewIfNeeded();
    await shoot(bob.page, '71-approvals-one-of-two');
  });

  it('tells Ann she cannot approve her own request', async () => {
    if (raise === undefined) throw new Error('no request: the raise was refused');
    const page = ann.page;
    await page.goto(`${svc.url}/approvals?sel=${raise.request_id}`);
    const card = page.getByRole('article', { name: raise.title }).first();
    await card.waitFor();
    await card.locator('.quorum').filter({ hasText: '1 of 2 approvals' }).waitFor();
    const approve = card.getByRole('button', { name: 'Approve', exact: true });
    if (await approve.isEnabled()) {
      // The console did not recognise her as the requester: the service's 409 is shown.
      await approve.click();
      await card.getByRole('button', { name: 'Confirm approval' }).click();
    }
    await card
      .getByText(/You requested this/)
      .first()
      .waitFor();
    // Her own request never counts as waiting for her.
    expect((await navApprovals(page).textContent())?.trim()).toBe('Approvals');
    const res = await http<{ error: string }>(
      ann.token,
      'POST',
      `/v1/approvals/${raise.request_id}/approve`,
      {},
    );
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('own_request');
    await shoot(page, '72-approvals-own-request');
  });

  it('opens /approvals/<id> with the request pinned', async () => {
    if (raise === undefined) throw new Error('no request: the raise was refused');
    const page = bob.page;
    await page.goto(`${svc.url}/approvals/${raise.request_id}`);
    await page.waitForURL(`${svc.url}/approvals?sel=${raise.request_id}`);
    await page.getByRole('heading', { name: /^Selected/ }).waitFor();
    const pinned = page.getByRole('article', { name: raise.title });
    // Pinned on top, and not listed a second time.
    await pinned.first().waitFor();
    expect(await pinned.count()).toBe(1);
    await pinned.locator('.quorum').filter({ hasText: '1 of 2 approvals' }).waitFor();
  });

  it('shows the pending raise with its quorum state on /autonomy', async () => {
    if (raise === undefined) throw new Error('no request: the raise was refused');
    const page = ann.page;
    await page.goto(`${svc.url}/autonomy`);
    const row = page.getByRole('row', { name: 'autonomy of payments' });
    await row.getByText('1 of 2 approvals').waitFor();
    await shoot(page, '73-autonomy-pending');
  });
});

describe('the global halt', () => {
  const REASON = 'e2e: database migration in progress';

  it('halts from the top bar once a reason is given', async () => {
    const page = bob.page;
    await page.goto(`${svc.url}/autonomy`);
    await page.getByRole('region', { name: 'Global halt' }).getByText('Not halted').waitFor();
    await page.getByRole('button', { name: '■ Halt all actions' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm halt' });
    await dialog.getByRole('button', { name: '■ Halt now' }).click();
    await dialog.getByText(/the reason is shown to everyone/).waitFor();
    expect((await autonomy()).halted).toBeNull();
    await dialog.getByLabel('Reason for halting (required)').fill(REASON);
    await dialog.getByRole('button', { name: '■ Halt now' }).click();
    await page.getByRole('status').filter({ hasText: '■ HALTED' }).waitFor();
    const halted = await until('the halt', async () => (await autonomy()).halted ?? undefined);
    expect(halted.reason).toBe(REASON);
    // The wall (no buttons) says it too, with who and why.
    await page.goto(`${svc.url}/wall`);
    const wall = page.getByRole('status', { name: 'halted', exact: true });
    await wall.waitFor();
    expect(await wall.textContent()).toContain('ALL ACTIONS HALTED');
    expect(await wall.textContent()).toContain(REASON);
    expect(await wall.textContent()).toContain(halted.by);
    expect(await page.getByRole('button').count()).toBe(0);
    await shoot(page, '74b-wall-halted');
    // The banner on every page says who, when and why.
    await page.goto(`${svc.url}/episodes`);
    const banner = page.getByRole('status', { name: 'halted', exact: true });
    await banner.waitFor();
    expect(await banner.textContent()).toContain(REASON);
    await shoot(page, '74-halted');
  });

  it('resumes for an admin after a confirmation', async () => {
    const page = bob.page;
    const banner = page.getByRole('status', { name: 'halted', exact: true });
    await banner.getByRole('button', { name: 'Resume…' }).click();
    await banner.getByRole('button', { name: 'Resume actions' }).click();
    await banner.waitFor({ state: 'detached' });
    await until('the resume', async () => ((await autonomy()).halted === null ? true : undefined));
    await page.getByRole('button', { name: '■ Halt all actions' }).waitFor();
  });
});

describe('the policy editor', () => {
  it('shows the 400 beside the section for a window that ends before it starts', async () => {
    await signInWithAdminToken(admin, `${svc.url}/policy`, svc.adminToken);
    const section = admin.getByRole('region', { name: 'Maintenance windows' });
    await section.waitFor();
    const editor = section.getByLabel('Maintenance windows as JSON');
    // Not JSON: said before anything is sent.
    await editor.fill('[{"name": ');
    await section.getByRole('button', { name: 'Save maintenance windows' }).click();
    await section.getByRole('alert').filter({ hasText: 'is not valid JSON' }).waitFor();
    // A window that ends before it starts: the service's 400 names maintenance.0.ends.
    await editor.fill(
      JSON.stringify(
        [
          {
            name: 'backwards',
            services: ['payments'],
            starts: '2026-11-22T03:00:00Z',
            ends: '2026-11-22T01:00:00Z',
          },
        ],
        null,
        2,
      ),
    );
    await section.getByRole('button', { name: 'Save maintenance windows' }).click();
    const alert = section.getByRole('alert').filter({ hasText: 'maintenance.0.ends' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('must be after starts');
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    const policy = await http<{ policy: { maintenance: unknown[] } }>(
      svc.adminToken,
      'GET',
      '/v1/policy',
    );
    expect(policy.body.policy.maintenance).toEqual([]);
    await section.scrollIntoViewIfNeeded();
    await shoot(admin, '75-policy-bad-window');
  });

  it('shows the 400 for a change window that ends before it starts', async () => {
    const section = admin.getByRole('region', { name: 'Change windows' });
    await section.waitFor();
    await section.getByLabel('Change windows as JSON').fill(
      JSON.stringify([
        {
          name: 'freeze-backwards',
          services: ['payments'],
          mode: 'freeze',
          starts: '2026-11-27T00:00:00Z',
          ends: '2026-11-26T00:00:00Z',
        },
      ]),
    );
    await section.getByRole('button', { name: 'Save change windows' }).click();
    const alert = section.getByRole('alert').filter({ hasText: 'change_windows.0.ends' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('must be after starts');
    // The summary above the JSON reads the draft.
    expect(await section.textContent()).toContain('freeze-backwards (freeze: no actions');
  });

  it('saves a good window and shows the section from the service', async () => {
    const section = admin.getByRole('region', { name: 'Maintenance windows' });
    const editor = section.getByLabel('Maintenance windows as JSON');
    await editor.fill(
      JSON.stringify([
        {
          name: 'db-upgrade',
          services: ['payments'],
          starts: '2026-11-22T01:00:00Z',
          ends: '2026-11-22T03:00:00Z',
        },
      ]),
    );
    await section.getByRole('button', { name: 'Save maintenance windows' }).click();
    await section.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const policy = await http<{ policy: { maintenance: { name: string }[] }; source: string }>(
      svc.adminToken,
      'GET',
      '/v1/policy',
    );
    expect(policy.body.source).toBe('api');
    expect(policy.body.policy.maintenance.map((w) => w.name)).toEqual(['db-upgrade']);
    expect(await editor.inputValue()).toContain('"db-upgrade"');
  });
});
