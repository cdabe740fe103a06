// Autonomy, fix mode and halt over real HTTP on a real SQLite file: lowering applies at once,
// a raise is requested (202) and applied after two different admins approve, 409 with why
// when it cannot be asked for, halt and resume recorded with their reason, `by` only with
// the admin token, and 400s naming the field.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, serveApprovals, type Harness } from '../testing/approvals/approvals.js';
import type { ApprovalRequest } from '../approvals/index.js';
import { dumpProjections, rebuildProjections } from '../ledger/index.js';
import { autonomyPolicyCheck } from './autonomy-checks.js';

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-autonomy-'));
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(): Promise<Harness> {
  const h = await serveApprovals({ dir });
  closers.push(h.close);
  return h;
}

/** Until the after-commit handler's own transaction has committed. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('did not happen');
}

async function admins(h: Harness) {
  return {
    alice: await h.person('alice@example.com', 'admin'),
    bob: await h.person('bob@example.com', 'admin'),
    carol: await h.person('carol@example.com', 'owner'),
  };
}

describe('autonomy levels', () => {
  it('starts at shadow, and applies a lower level at once (200)', async () => {
    const h = await serve();
    const { alice } = await admins(h);
    const view = await h.call('GET', '/autonomy', alice.token);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      default: 'shadow',
      services: [],
      halted: null,
      raise_quorum: 2,
      raise_impossible: null,
      fix_mode: 'advise',
      drafted_quorum: 2,
      requests: [],
    });
    const low = await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'off' });
    expect(low.status).toBe(200);
    expect(low.body).toEqual({ service: 'web', level: 'off' });
    expect(h.autonomy.levelOf('web')).toBe('off');
    expect(h.autonomy.levelOf('db')).toBe('shadow');
    const same = await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'off' });
    expect(same.status).toBe(200);
    // shadow from off only records: applied at once too.
    const back = await h.call('POST', '/autonomy', alice.token, {
      service: 'web',
      level: 'shadow',
    });
    expect(back.status).toBe(200);
    const def = await h.call('POST', '/autonomy', alice.token, { service: '*', level: 'off' });
    expect(def.body).toEqual({ service: '*', level: 'off' });
    expect(h.autonomy.levelOf('db')).toBe('off');
    expect(h.autonomy.levelOf('web')).toBe('shadow');
    expect(h.events('autonomy.set').map((e) => [e.actor, e.data])).toEqual([
      ['alice', { service: 'web', level: 'off', from: 'shadow', actor_id: alice.user.id }],
      ['alice', { service: 'web', level: 'shadow', from: 'off', actor_id: alice.user.id }],
      ['alice', { service: '*', level: 'off', from: 'shadow', actor_id: alice.user.id }],
    ]);
    const after = await h.call('GET', '/autonomy', alice.token);
    expect(after.body).toMatchObject({
      default: 'off',
      services: [{ service: 'web', level: 'shadow' }],
    });
  });

  it('requests a raise (202), and applies it after two different admins approve', async () => {
    const h = await serve();
    const { alice, bob, carol } = await admins(h);
    const res = await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'L2' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const request = res.body['request'] as ApprovalRequest;
    expect(request).toMatchObject({
      kind: 'autonomy',
      status: 'pending',
      quorum: 2,
      approver_role: 'admin',
      requested_by: 'alice',
      service: 'web',
      subject: { service: 'web', level: 'L2', from: 'shadow' },
    });
    expect(h.autonomy.levelOf('web')).toBe('shadow');
    const view = await h.call('GET', '/autonomy', bob.token);
    expect((view.body['requests'] as ApprovalRequest[]).map((r) => r.request_id)).toEqual([
      request.request_id,
    ]);

    const own = await h.call('POST', `/approvals/${request.request_id}/approve`, alice.token, {});
    expect(own.body['why']).toBe('own_request');
    const b1 = await h.call('POST', `/approvals/${request.request_id}/approve`, bob.token, {});
    expect(b1.status).toBe(200);
    const b2 = await h.call('POST', `/approvals/${request.request_id}/approve`, bob.token, {});
    expect(b2.status).toBe(409);
    expect(b2.body['why']).toBe('already_decided');
    await new Promise((r) => setTimeout(r, 30));
    expect(h.autonomy.levelOf('web')).toBe('shadow');

    const c = await h.call('POST', `/approvals/${request.request_id}/approve`, carol.token, {});
    expect(c.status).toBe(200);
    expect(c.body['status']).toBe('approved');
    // Applied in the approving transaction: the answer already implies the new level.
    expect(h.autonomy.levelOf('web')).toBe('L2');
    expect(h.events('autonomy.raise_requested').map((e) => e.data)).toEqual([
      { service: 'web', level: 'L2', from: 'shadow', request_id: request.request_id },
    ]);
    expect(h.events('autonomy.set').map((e) => [e.actor, e.data])).toEqual([
      [
        'system',
        {
          service: 'web',
          level: 'L2',
          from: 'shadow',
          request_id: request.request_id,
          requested_by: 'alice',
          requested_by_id: alice.user.id,
          approved_by: ['bob', 'carol'],
          approved_by_ids: [bob.user.id, carol.user.id],
        },
      ],
    ]);
  });

  it('refuses a raise with 409 and why when it cannot be approved, or one is pending', async () => {
    const h = await serve();
    const alice = await h.person('alice@example.com', 'admin');
    await h.person('rita@example.com', 'responder');
    const bob = await h.person('bob@example.com', 'admin');
    const few = await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'L1' });
    expect(few.status).toBe(409);
    expect(few.body).toMatchObject({ error: 'raise_impossible', why: 'not_enough_approvers' });
    expect(String(few.body['message'])).toContain('only 1 other person');
    const view = await h.call('GET', '/autonomy', alice.token);
    expect(view.body['raise_impossible']).toEqual(expect.stringContaining('admin'));

    // The admin token is no person: alice and bob both can approve its raise.
    const byToken = await h.call('POST', '/autonomy', ADMIN_TOKEN, { service: 'web', level: 'L1' });
    expect(byToken.status, JSON.stringify(byToken.body)).toBe(202);
    expect((await h.call('GET', '/autonomy', ADMIN_TOKEN)).body['raise_impossible']).toBeNull();
    const again = await h.call('POST', '/autonomy', ADMIN_TOKEN, { service: 'web', level: 'L2' });
    expect(again.status).toBe(409);
    expect(again.body['why']).toBe('already_pending');
    // Another service is its own raise.
    const other = await h.call('POST', '/autonomy', ADMIN_TOKEN, { service: 'db', level: 'L1' });
    expect(other.status).toBe(202);

    const pending = byToken.body['request'] as ApprovalRequest;
    // The admin token asked: it never approves its own request, whoever it names; bob and
    // alice, two people, do.
    const own = await h.call('POST', `/approvals/${pending.request_id}/approve`, ADMIN_TOKEN, {
      by: 'alice',
    });
    expect(own.body['why']).toBe('own_request');
    expect(
      (await h.call('POST', `/approvals/${pending.request_id}/approve`, bob.token, {})).status,
    ).toBe(200);
    expect(
      (await h.call('POST', `/approvals/${pending.request_id}/approve`, alice.token, {})).status,
    ).toBe(200);
    await eventually(() => h.autonomy.levelOf('web') === 'L1');
    const viewer = await h.person('vic@example.com', 'viewer');
    const forbidden = await h.call('POST', '/autonomy', viewer.token, {
      service: 'web',
      level: 'off',
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body['role']).toBe('admin');
  });

  it('answers 400 naming the field', async () => {
    const h = await serve();
    const { alice } = await admins(h);
    const cases: [string, unknown, string][] = [
      ['/autonomy', { service: 'web' }, 'level'],
      ['/autonomy', { service: 'web', level: 'L9' }, 'level'],
      ['/autonomy', { level: 'L1' }, 'service'],
      ['/autonomy', { service: 'web', level: 'L1', colour: 1 }, 'colour'],
      ['/autonomy', { service: '', level: 'off' }, 'service'],
      ['/fix-mode', { mode: 'sometimes' }, 'mode'],
      ['/halt', {}, 'reason'],
      ['/halt', { reason: '   ' }, 'reason'],
      ['/resume', { by: '' }, 'by'],
      ['/autonomy', { service: '   ', level: 'off' }, 'service'],
    ];
    for (const [url, body, field] of cases) {
      const res = await h.call('POST', url, alice.token, body);
      expect(res.status, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body['field'], `${url} ${JSON.stringify(body)}`).toBe(field);
    }
  });
});

describe('fix mode', () => {
  it('requests draft (202) and applies it after two approvals; advise applies at once', async () => {
    const h = await serve();
    const { alice, bob, carol } = await admins(h);
    const res = await h.call('POST', '/fix-mode', alice.token, { mode: 'draft' });
    expect(res.status).toBe(202);
    const request = res.body['request'] as ApprovalRequest;
    expect(request).toMatchObject({ kind: 'fix_mode', quorum: 2, approver_role: 'admin' });
    const again = await h.call('POST', '/fix-mode', bob.token, { mode: 'draft' });
    expect(again.status).toBe(409);
    expect(again.body['why']).toBe('already_pending');
    await h.call('POST', `/approvals/${request.request_id}/approve`, bob.token, {});
    expect(h.autonomy.fixMode()).toBe('advise');
    await h.call('POST', `/approvals/${request.request_id}/approve`, carol.token, {});
    await eventually(() => h.autonomy.fixMode() === 'draft');
    expect((await h.call('GET', '/autonomy', alice.token)).body['fix_mode']).toBe('draft');
    const advise = await h.call('POST', '/fix-mode', alice.token, { mode: 'advise' });
    expect(advise.status).toBe(200);
    expect(advise.body).toEqual({ mode: 'advise' });
    expect(h.autonomy.fixMode()).toBe('advise');
    expect(h.events('fix_mode.set').map((e) => [e.actor, e.data['mode']])).toEqual([
      ['system', 'draft'],
      ['alice', 'advise'],
    ]);
    expect(await autonomyPolicyCheck(h.autonomy).run()).toMatchObject({ status: 'ok' });
  });

  it('refuses draft with 409 when two approvers cannot be found', async () => {
    const h = await serve();
    const alice = await h.person('alice@example.com', 'admin');
    const res = await h.call('POST', '/fix-mode', alice.token, { mode: 'draft' });
    expect(res.status).toBe(409);
    expect(res.body['why']).toBe('not_enough_approvers');
  });
});

describe('halt and resume', () => {
  it('records halt with its reason (responder) and resume (admin); `by` only with the admin token', async () => {
    const h = await serve();
    const rita = await h.person('rita@example.com', 'responder');
    const { alice } = await admins(h);
    const viewer = await h.person('vic@example.com', 'viewer');
    expect((await h.call('POST', '/halt', viewer.token, { reason: 'x' })).body['role']).toBe(
      'responder',
    );
    const halt = await h.call('POST', '/halt', rita.token, {
      reason: 'bad deploy in flight',
      by: 'someone-else',
    });
    expect(halt.status).toBe(200);
    expect(halt.body).toEqual({
      halted: { reason: 'bad deploy in flight', by: 'rita', at: '2026-11-22T09:00:00.000Z' },
    });
    expect(h.autonomy.halted()).toBe(true);
    const e = h.events('system.halt');
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({
      actor: 'rita',
      reason: 'bad deploy in flight',
      data: { reason: 'bad deploy in flight' },
    });
    // Halting again changes nothing.
    const twice = await h.call('POST', '/halt', rita.token, { reason: 'again' });
    expect(twice.body['halted']).toMatchObject({ reason: 'bad deploy in flight' });
    expect(h.events('system.halt')).toHaveLength(1);
    expect((await h.call('GET', '/autonomy', rita.token)).body['halted']).toMatchObject({
      by: 'rita',
    });

    const byResponder = await h.call('POST', '/resume', rita.token, {});
    expect(byResponder.status).toBe(403);
    expect(byResponder.body['role']).toBe('admin');
    const resume = await h.call('POST', '/resume', ADMIN_TOKEN, {
      by: alice.name,
      reason: 'rolled back',
    });
    expect(resume.status).toBe(200);
    expect(resume.body).toEqual({ halted: null });
    expect(h.autonomy.halted()).toBe(false);
    expect(h.events('system.resume')[0]).toMatchObject({
      actor: 'alice',
      reason: 'rolled back',
      data: { via: 'admin-token' },
    });
    // Without a body at all.
    await h.call('POST', '/halt', rita.token, { reason: 'again' });
    const bare = await h.call('POST', '/resume', alice.token);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
  });

  it('rebuilds levels, fix mode and halt from the ledger alone', async () => {
    const h = await serve();
    const { alice } = await admins(h);
    await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'off' });
    await h.call('POST', '/fix-mode', alice.token, { mode: 'draft' });
    await h.call('POST', '/halt', alice.token, { reason: 'test' });
    const before = dumpProjections(h.db, h.projections);
    const result = rebuildProjections(h.db, h.ledgerStore, h.projections, false, (fn) => {
      h.writer.transactNow(fn);
    });
    expect(result.differing).toEqual([]);
    expect(dumpProjections(h.db, h.projections)).toEqual(before);
    expect(h.autonomy.halted()).toBe(true);
  });
});
