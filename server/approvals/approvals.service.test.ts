// The rules of approval requests against the real store on a SQLite file: the two-person
// rule, quorum, deny, withdraw, expiry, the subject hash, onDecided after the commit, and
// escalation's steps with a fake channel.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLinkSigner, createLinkUseStore } from '../channels/index.js';
import { createFakeClock } from '../shared/clock.js';
import { openLedgerBench } from '../testing/ledger-bench.js';
import { createApprovalsService, newRequestId, subjectSha256 } from './approvals.service.js';
import { approversOf, type Approver } from './approvers.js';
import { createApprovalsStore } from './approvals.store.js';
import { createEscalation } from './escalation.js';
import type { ApprovalRequest, OpenApproval } from './types.js';

let dir: string;
const closers: (() => void)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-approvals-unit-'));
});
afterEach(() => {
  for (const c of closers.splice(0)) c();
  rmSync(dir, { recursive: true, force: true });
});

function bench() {
  const clock = createFakeClock('2026-11-22T09:00:00.000Z');
  const b = openLedgerBench(join(dir, 'svc.db'), clock);
  closers.push(() => b.db.close());
  const store = createApprovalsStore(b.db);
  b.projections.register(store.projection);
  const links = createLinkSigner({
    key: Buffer.alloc(32, 7),
    clock,
    used: createLinkUseStore(b.db),
  });
  const approvals = createApprovalsService({
    store,
    ledger: b.ledger,
    writer: b.writer,
    clock,
    links,
  });
  return { ...b, clock, store, approvals, links };
}

const OPEN: OpenApproval = {
  kind: 'action',
  title: 'Restart nginx',
  summary: 'stuck workers',
  service: 'web',
  risk: 'low',
  episode_id: null,
  subject: { fix: 'restart', args: { unit: 'nginx' } },
  quorum: 2,
  approver_role: 'responder',
  requested_by: 'alice',
};
const as = (name: string, role: Approver['role'] = 'responder'): Approver => ({
  actor: { name },
  role,
});
const why = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p;
  } catch (err) {
    return (
      (err as { details?: { why?: string }; code?: string }).details?.why ??
      (err as { code?: string }).code
    );
  }
  return 'no error';
};

describe('approval rules', () => {
  it('makes ids and binds the subject by its canonical hash', () => {
    expect(newRequestId('2026-11-22T10:15:00.123Z')).toMatch(/^ap-20261122T101500Z-[0-9a-f]{6}$/);
    expect(subjectSha256({ a: 1, b: { c: 2 } })).toBe(subjectSha256({ b: { c: 2 }, a: 1 }));
    expect(subjectSha256({ a: 1 })).not.toBe(subjectSha256({ a: 2 }));
    expect(
      approversOf({
        decisions: [
          { by: 'x', by_id: 'usr-1', decision: 'approve', at: '', via: 'console', reason: null },
          // Renamed between approvals: the same person by id.
          { by: 'z', by_id: 'usr-1', decision: 'approve', at: '', via: 'console', reason: null },
          { by: 'y', by_id: 'usr-2', decision: 'deny', at: '', via: 'console', reason: null },
        ],
      }),
    ).toEqual(['usr-1']);
  });

  it('needs distinct approvers other than the requester to reach the quorum', async () => {
    const { approvals } = bench();
    const r = await approvals.open(OPEN);
    expect(r).toMatchObject({ status: 'pending', quorum: 2, requested_by: 'alice' });
    expect(r.expires_at).toBe('2026-11-23T09:00:00.000Z');
    expect(await why(approvals.approve(r.request_id, as('alice')))).toBe('own_request');
    expect((await approvals.approve(r.request_id, as('bob'))).status).toBe('pending');
    expect(await why(approvals.approve(r.request_id, as('bob')))).toBe('already_decided');
    expect(await why(approvals.deny(r.request_id, as('bob'), 'changed my mind'))).toBe(
      'already_decided',
    );
    expect((await approvals.approve(r.request_id, as('carol'))).status).toBe('approved');
    expect(await why(approvals.approve(r.request_id, as('dave')))).toBe('not_pending');
  });

  it('ends at one deny, and refuses a role below the one the request names', async () => {
    const { approvals } = bench();
    const r = await approvals.open({ ...OPEN, approver_role: 'admin' });
    expect(await why(approvals.approve(r.request_id, as('bob', 'responder')))).toBe(
      'role_required',
    );
    const denied = await approvals.deny(r.request_id, as('bob', 'owner'), 'not now');
    expect(denied).toMatchObject({ status: 'denied', reason: 'not now' });
  });

  it('withdraws only what is pending, and expires what nobody decided', async () => {
    const { approvals, clock } = bench();
    const r = await approvals.open(OPEN);
    expect((await approvals.withdraw(r.request_id, as('bob'))).status).toBe('withdrawn');
    expect(await why(approvals.withdraw(r.request_id, as('bob')))).toBe('not_pending');
    const short = await approvals.open({ ...OPEN, ttl_s: 30 });
    clock.advance(29_000);
    expect(await approvals.sweep()).toEqual([]);
    clock.advance(1_000);
    expect(await why(approvals.approve(short.request_id, as('bob')))).toBe('not_pending');
    const swept = await approvals.sweep();
    expect(swept.map((s) => [s.request_id, s.status])).toEqual([[short.request_id, 'expired']]);
    expect(approvals.pending()).toEqual([]);
  });

  it('refuses a bad request naming the field, and openIn outside a writer job', async () => {
    const { approvals } = bench();
    expect(await why(approvals.open({ ...OPEN, quorum: 0 }))).toBe('invalid_input');
    await expect(approvals.open({ ...OPEN, title: ' ' })).rejects.toMatchObject({
      details: { field: 'title' },
    });
    await expect(approvals.open({ ...OPEN, ttl_s: 0 })).rejects.toMatchObject({
      details: { field: 'ttl_s' },
    });
    expect(() => approvals.openIn(OPEN)).toThrow(/writer transaction/);
  });

  it('calls onDecided after the commit, for its kind only; onOpened for every request', async () => {
    const { approvals, store } = bench();
    const seen: string[] = [];
    const opened: string[] = [];
    approvals.onDecided('action', (r) => {
      // After the commit: the store already shows the end.
      seen.push(`${r.request_id}:${r.status}:${String(store.get(r.request_id)?.status)}`);
    });
    approvals.onDecided('autonomy', () => {
      seen.push('autonomy');
    });
    approvals.onDecided('action', () => {
      throw new Error('a failing handler does not undo the decision');
    });
    approvals.onOpened((r) => {
      opened.push(r.request_id);
    });
    const r = await approvals.open({ ...OPEN, quorum: 1 });
    await approvals.approve(r.request_id, as('bob'));
    expect(seen).toEqual([`${r.request_id}:approved:approved`]);
    expect(opened).toEqual([r.request_id]);
    expect(store.get(r.request_id)?.status).toBe('approved');
  });
});

describe('escalation', () => {
  it('sends due steps once each, records failures, and keeps tokens out of the detail', async () => {
    const { approvals, clock, links } = bench();
    const calls: { connector: string; args: Record<string, unknown> }[] = [];
    const escalation = createEscalation({
      approvals,
      steps: () => [
        { after_s: 0, channel: 'chat' },
        { after_s: 60, channel: 'pager' },
      ],
      call: (connector, _op, args) => {
        calls.push({ connector, args: { ...args } });
        if (connector === 'pager')
          return Promise.reject(new Error(`far end said no to ${String(args['approve_url'])}`));
        return Promise.resolve({ delivered: true, detail: 'accepted' });
      },
      links,
      baseUrl: () => 'https://svc.example.com/',
      clock,
      every: () => () => undefined,
    });
    const r = await approvals.open({ ...OPEN, quorum: 1 });
    await escalation.tick();
    await escalation.tick();
    expect(calls.map((c) => c.connector)).toEqual(['chat']);
    expect(String(calls[0]?.args['approve_url'])).toMatch(
      /^https:\/\/svc\.example\.com\/approvals\/link\?token=/,
    );
    clock.advance(60_000);
    await escalation.tick();
    expect(calls.map((c) => c.connector)).toEqual(['chat', 'pager']);
    const channels = (approvals.find(r.request_id) as ApprovalRequest).channels;
    expect(channels.map((c) => [c.channel, c.step, c.ok, c.detail])).toEqual([
      ['chat', 0, true, 'accepted'],
      ['pager', 1, false, expect.stringContaining('***') as string],
    ]);
    expect(channels[1]?.detail).toMatch(/token=\*\*\*$/);
    const token = new URL(String(calls[1]?.args['approve_url'])).searchParams.get('token') ?? '';
    expect(channels[1]?.detail).not.toContain(token);
    // Decided requests are not sent again.
    await approvals.approve(r.request_id, as('bob'));
    clock.advance(600_000);
    await escalation.tick();
    expect(calls).toHaveLength(2);
  });
});
