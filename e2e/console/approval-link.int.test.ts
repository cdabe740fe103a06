// The page of a channel's approve/deny link (/approvals/link?token=…) in a real Chromium
// against the bundled service (SVC_LAB_APPROVER unset: nothing approves on its own). Before
// the service starts, its data folder is prepared the way the service would fill it: action
// requests opened through the service's own approvals (as the orchestrator opens them), their
// links signed with the folder's key (`secrets/channel-links.key`, server/channels/links.ts)
// and recorded as sent on a channel, as escalation does. Then, signed out: the approve link
// shows what it would do and uses nothing until Confirm; Confirm records the approval as
// `channel:ops-chat` (checked through the API); a second visit, and the request's deny link,
// say the link was used. A deny link records its reason; a forged link, an expired one and one
// whose request was withdrawn are each refused in words, deciding nothing.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApproval } from '../../server/approvals/types.js';
import {
  createLinkSigner,
  createLinkUseStore,
  loadOrCreateLinkKey,
} from '../../server/channels/index.js';
import { buildTestServer } from '../../server/testing/test-server.js';
import { type Proc } from '../lab/processes.js';
import { shoot, startConsole, type ConsoleBench } from './browser.js';

interface ApprovalRequest {
  request_id: string;
  kind: string;
  status: string;
  title: string;
  service: string | null;
  reason: string | null;
  decisions: { by: string; decision: string; via: string; reason: string | null }[];
}

const CHANNEL = 'ops-chat';

const ACTION: OpenApproval = {
  kind: 'action',
  title: 'Restart the unit nginx on web-1',
  summary: 'nginx workers are stuck; a restart clears them.',
  service: 'web',
  risk: 'medium',
  episode_id: null,
  subject: { pack: 'host', fix: 'restart_unit', connector: 'web-1', op: 'restart', args: {} },
  quorum: 1,
  approver_role: 'responder',
  requested_by: 'system',
};

/** What the prepared folder holds: request ids and their links. */
const made = {
  approve: { id: '', approve: '', deny: '' },
  deny: { id: '', deny: '' },
  expired: { id: '', approve: '', expiresAt: '' },
  withdrawn: { id: '', approve: '' },
};

let svc: Proc & { adminToken: string };
let browser: Browser;
let bench: ConsoleBench | undefined;
let context: BrowserContext;
let page: Page;

async function http<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${svc.adminToken}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as T };
}

const request = async (id: string): Promise<ApprovalRequest> => {
  const res = await http<ApprovalRequest>('GET', `/v1/approvals/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};

const linkPage = (token: string) => `${svc.url}/approvals/link?token=${encodeURIComponent(token)}`;

beforeAll(async () => {
  bench = await startConsole(
    {},
    {
      prepare: async (dir) => {
        const seeder = await buildTestServer({ dir });
        try {
          const { approvals } = seeder.acting;
          // The service's own link key (made at first start) and its record of used links.
          const links = createLinkSigner({
            key: loadOrCreateLinkKey(join(dir, 'data')),
            clock: seeder.runtime.clock,
            used: createLinkUseStore(seeder.runtime.db),
          });
          const open = async (title: string) => {
            const r = await approvals.open({ ...ACTION, title });
            const pair = links.signPair(r.request_id, r.expires_at);
            const ids = [pair.approve, pair.deny].map((t) => {
              const c = links.verify(t);
              if (!c.ok) throw new Error(`a fresh link was refused: ${c.message}`);
              return c.token_id;
            });
            await approvals.recordSent({
              request_id: r.request_id,
              channel: CHANNEL,
              step: 0,
              ok: true,
              detail: 'posted by the lab',
              link_ids: ids,
            });
            return { id: r.request_id, ...pair };
          };
          const a = await open(ACTION.title);
          made.approve = { id: a.id, approve: a.approve, deny: a.deny };
          const d = await open('Clear the cache web-cache');
          made.deny = { id: d.id, deny: d.deny };
          const w = await open('Terminate the idle sessions of lab_batch');
          made.withdrawn = { id: w.id, approve: w.approve };
          // A link that expires before the browser opens it (its request stays pending).
          const e = await approvals.open({ ...ACTION, title: 'Restart the unit postgresql' });
          const expiresAt = new Date(Date.now() + 1500).toISOString();
          made.expired = {
            id: e.request_id,
            approve: links.sign({
              request_id: e.request_id,
              decision: 'approve',
              expires_at: expiresAt,
            }),
            expiresAt,
          };
        } finally {
          await seeder.stop();
        }
      },
    },
  );
  ({ svc, browser } = bench);
  // Signed out: no session in this browser.
  context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  page = await context.newPage();
}, 90_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await bench?.stop();
});

describe('an approve link', () => {
  it('shows what it would do, signed out, and uses nothing', async () => {
    await page.goto(linkPage(made.approve.approve));
    await page.getByRole('heading', { name: 'Approve this request?' }).waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain(ACTION.title);
    expect(text).toContain('web');
    expect(text).toContain('medium risk');
    expect(text).toContain('0 of 1 approval');
    expect(text).toContain(`sent on ${CHANNEL}`);
    expect(text).toMatch(/The link expires .+\(in \d+ h \d+ min\)/);
    // No sign-in gate: the link is the credential.
    expect(await page.getByLabel('Admin token').count()).toBe(0);
    // Reading the link decided nothing.
    const r = await request(made.approve.id);
    expect(r.status).toBe('pending');
    expect(r.decisions).toEqual([]);
    await shoot(page, '76-approval-link');
  });

  it('records the approval as the channel when confirmed', async () => {
    await page.getByRole('button', { name: '✓ Confirm: approve' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Approved' });
    await done.waitFor();
    expect(await done.textContent()).toContain(`channel:${CHANNEL}`);
    expect(await done.textContent()).toContain('1 of 1 approval');
    const r = await request(made.approve.id);
    expect(r.status).toBe('approved');
    expect(r.decisions).toEqual([
      expect.objectContaining({ by: `channel:${CHANNEL}`, decision: 'approve', via: 'link' }),
    ]);
    await shoot(page, '77-approval-link-approved');
  });

  it('says it was used on a second visit, and so does the deny link of the request', async () => {
    for (const token of [made.approve.approve, made.approve.deny]) {
      await page.goto(linkPage(token));
      const refused = page.getByRole('alert', { name: 'link refused' });
      await refused.waitFor();
      expect(await refused.textContent()).toContain('This link was already used');
      expect(await refused.textContent()).toContain('already used (approve');
      expect(await page.getByRole('button', { name: /Confirm/ }).count()).toBe(0);
    }
    await shoot(page, '78-approval-link-used');
    // Nothing more was recorded.
    expect((await request(made.approve.id)).decisions).toHaveLength(1);
  });
});

describe('a deny link', () => {
  it('denies with the reason typed', async () => {
    await page.goto(linkPage(made.deny.deny));
    await page.getByRole('heading', { name: 'Deny this request?' }).waitFor();
    await page.getByLabel(/Reason/).fill('the cache is warming up; leave it');
    await page.getByRole('button', { name: '✖ Confirm: deny' }).click();
    await page.getByRole('status').filter({ hasText: 'Denied' }).waitFor();
    const r = await request(made.deny.id);
    expect(r.status).toBe('denied');
    expect(r.decisions).toEqual([
      expect.objectContaining({
        by: `channel:${CHANNEL}`,
        decision: 'deny',
        via: 'link',
        reason: 'the cache is warming up; leave it',
      }),
    ]);
  });
});

describe('links that decide nothing', () => {
  it('refuses a forged link', async () => {
    const [payload = '', mac = ''] = made.withdrawn.approve.split('.');
    const forged = `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    await page.goto(linkPage(forged));
    const refused = page.getByRole('alert', { name: 'link refused' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('This link is not valid');
    expect(await refused.textContent()).toContain('not made by this service or was changed');
    expect((await request(made.withdrawn.id)).status).toBe('pending');
  });

  it('refuses an expired link', async () => {
    const wait = Date.parse(made.expired.expiresAt) - Date.now();
    if (wait > 0) await sleep(wait + 100);
    await page.goto(linkPage(made.expired.approve));
    const refused = page.getByRole('alert', { name: 'link refused' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('This link has expired');
    expect(await refused.textContent()).toContain(made.expired.expiresAt);
    const r = await request(made.expired.id);
    expect(r.status).toBe('pending');
    expect(r.decisions).toEqual([]);
  });

  it('says when the request is no longer waiting', async () => {
    const withdrawn = await http<ApprovalRequest>(
      'POST',
      `/v1/approvals/${made.withdrawn.id}/withdraw`,
      { reason: 'e2e: fixed by hand' },
    );
    expect(withdrawn.status).toBe(200);
    await page.goto(linkPage(made.withdrawn.approve));
    const refused = page.getByRole('alert', { name: 'link refused' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('This request is no longer waiting');
    expect(await refused.textContent()).toContain('withdrawn');
    // The link to the console names the request (read from the token itself).
    expect(
      await page.getByRole('link', { name: 'open it in the console' }).getAttribute('href'),
    ).toBe(`/approvals/${made.withdrawn.id}`);
  });
});
