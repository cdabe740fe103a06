// The two-person rule over real HTTP on a real SQLite file (issue 16, items 1 to 4): the
// admin token counts once whatever `by` says, approvers and requesters are people by id (a
// rename changes nothing), a channel link counts as the person it was sent to, and lowering
// autonomy or disabling an approver withdraws the pending requests that relied on it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIRST_OWNER, SignInMethod } from '../access/index.js';
import { webhookKind } from '../connectors/index.js';
import { ADMIN_TOKEN, serveApprovals, type Harness } from '../testing/approvals/approvals.js';
import type { EscalationStepRef } from './escalation.js';
import type { ApprovalRequest, OpenApproval } from './types.js';

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-quorum-'));
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(steps?: readonly EscalationStepRef[]): Promise<Harness> {
  const h = await serveApprovals({ dir, ...(steps && { steps, kinds: [webhookKind] }) });
  closers.push(h.close);
  return h;
}

const RESTORE: OpenApproval = {
  kind: 'action',
  title: 'Roll back web to 1.4.1',
  summary: 'the deploy of 1.4.2 broke the checkout',
  service: 'web',
  risk: 'high',
  episode_id: 'ep-20261122T090000Z-abc123',
  subject: { pack: 'deploys', fix: 'rollback', connector: 'web-1', op: 'rollback', args: {} },
  quorum: 2,
  approver_role: 'responder',
  requested_by: 'system',
};

const req = (body: Record<string, unknown>) => body as unknown as ApprovalRequest;

/** Three admins: alice asks, bob and carol may approve. */
async function admins(h: Harness) {
  return {
    alice: await h.person('alice@example.com', 'admin'),
    bob: await h.person('bob@example.com', 'admin'),
    carol: await h.person('carol@example.com', 'admin'),
  };
}

describe('item 1: the admin token counts once, as admin-token', () => {
  it('approves once whatever by says, refuses a by that is no enabled person, and L2 waits', async () => {
    const h = await serve();
    const { alice, bob, carol } = await admins(h);
    const raise = await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'L2' });
    expect(raise.status, JSON.stringify(raise.body)).toBe(202);
    const id = (raise.body['request'] as ApprovalRequest).request_id;

    const asBob = await h.call('POST', `/approvals/${id}/approve`, ADMIN_TOKEN, { by: 'bob' });
    expect(asBob.status, JSON.stringify(asBob.body)).toBe(200);
    expect(req(asBob.body).status).toBe('pending');
    expect(req(asBob.body).decisions[0]).toMatchObject({
      by: 'admin-token',
      by_id: 'admin-token',
      on_behalf_of: bob.user.id,
    });

    const asZed = await h.call('POST', `/approvals/${id}/approve`, ADMIN_TOKEN, { by: 'zed' });
    expect(asZed.status).toBe(400);
    expect(asZed.body['field']).toBe('by');
    const asCarol = await h.call('POST', `/approvals/${id}/approve`, ADMIN_TOKEN, {
      by: 'carol',
    });
    expect(asCarol.status).toBe(409);
    expect(asCarol.body['why']).toBe('already_decided');
    const plain = await h.call('POST', `/approvals/${id}/approve`, ADMIN_TOKEN, {});
    expect(plain.body['why']).toBe('already_decided');
    expect(h.approvals.get(id).status).toBe('pending');
    expect(h.autonomy.levelOf('web')).toBe('shadow');

    // A disabled person is no one to act for.
    await h.call('PUT', `/users/${carol.user.id}`, ADMIN_TOKEN, { disabled: true });
    const other = await h.approvals.open(RESTORE);
    const forDisabled = await h.call(
      'POST',
      `/approvals/${other.request_id}/approve`,
      ADMIN_TOKEN,
      {
        by: 'carol',
      },
    );
    expect(forDisabled.status).toBe(400);
    expect(forDisabled.body['field']).toBe('by');
    expect(h.approvals.get(other.request_id).decisions).toEqual([]);
  });
});

describe('item 1: the first owner signed in with the admin token', () => {
  it('is admin-token too: the token and its session are one approver', async () => {
    const h = await serve();
    const { token } = await h.sessions.signIn(FIRST_OWNER, SignInMethod.AdminToken);
    const r = await h.approvals.open(RESTORE);
    const first = await h.call('POST', `/approvals/${r.request_id}/approve`, token, {});
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(req(first.body).decisions[0]?.by_id).toBe('admin-token');
    const again = await h.call('POST', `/approvals/${r.request_id}/approve`, ADMIN_TOKEN, {});
    expect(again.body['why']).toBe('already_decided');
    expect(h.approvals.get(r.request_id).status).toBe('pending');
  });
});

describe('item 2: people are counted by id, and names are unique', () => {
  it('a rename between approvals does not make a second approver, nor lets the requester approve', async () => {
    const h = await serve();
    const { alice, bob } = await admins(h);
    const r = await h.approvals.open(RESTORE);
    expect((await h.call('POST', `/approvals/${r.request_id}/approve`, bob.token, {})).status).toBe(
      200,
    );
    const renamed = await h.call('PUT', '/me', bob.token, { name: 'robert' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const again = await h.call('POST', `/approvals/${r.request_id}/approve`, bob.token, {});
    expect(again.status).toBe(409);
    expect(again.body['why']).toBe('already_decided');
    expect(h.approvals.get(r.request_id)).toMatchObject({ status: 'pending' });
    expect(h.approvals.get(r.request_id).decisions.map((d) => d.by_id)).toEqual([bob.user.id]);

    const raise = await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'L1' });
    const raiseId = (raise.body['request'] as ApprovalRequest).request_id;
    expect(h.approvals.get(raiseId).requested_by_id).toBe(alice.user.id);
    await h.call('PUT', '/me', alice.token, { name: 'alicia' });
    const own = await h.call('POST', `/approvals/${raiseId}/approve`, alice.token, {});
    expect(own.status).toBe(409);
    expect(own.body['why']).toBe('own_request');
  });

  it('refuses a name someone has (409) and the reserved names (400 naming name)', async () => {
    const h = await serve();
    const { bob } = await admins(h);
    const taken = await h.call('PUT', '/me', bob.token, { name: 'Alice' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ why: 'name_taken', field: 'name' });
    const email = await h.call('PUT', '/me', bob.token, { name: 'carol@example.com' });
    expect(email.status).toBe(409);
    for (const name of ['system', 'Admin-Token', 'channel:hooks', 'lab-approver']) {
      const res = await h.call('PUT', '/me', bob.token, { name });
      expect(res.status, name).toBe(400);
      expect(res.body['field'], name).toBe('name');
    }
    const made = await h.call('POST', '/users', ADMIN_TOKEN, {
      email: 'dan@example.com',
      name: 'BOB',
      role: 'viewer',
    });
    expect(made.status).toBe(409);
    expect(made.body['why']).toBe('name_taken');
    expect((await h.call('PUT', '/me', bob.token, { name: 'bob' })).status).toBe(200);
  });
});

describe('item 3: a channel link counts as the person it was sent to', () => {
  const received: Record<string, unknown>[] = [];
  let receiver: Server;
  let receiverUrl: string;
  beforeAll(async () => {
    receiver = createServer((r, res) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        received.push(
          JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
        );
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${String((receiver.address() as { port: number }).port)}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => receiver.close(() => r()));
  });
  beforeEach(() => {
    received.splice(0);
  });
  const tokenOf = (url: unknown): string => new URL(String(url)).searchParams.get('token') ?? '';

  async function withHook() {
    writeFileSync(
      join(dir, 'connectors.json'),
      JSON.stringify({
        connectors: { hooks: { kind: 'webhook', settings: { url: `${receiverUrl}/hook` } } },
      }),
    );
    const steps: EscalationStepRef[] = [];
    const h = await serve(steps);
    const bob = await h.person('bob@example.com', 'responder');
    const carol = await h.person('carol@example.com', 'responder');
    return { h, bob, carol, steps };
  }
  const link = async (h: Harness, r: ApprovalRequest) => {
    await h.escalation.tick();
    const msg = received.find((m) => m['request_id'] === r.request_id) ?? {};
    return tokenOf(msg['approve_url']);
  };

  it('with quorum 2, the link sent to bob and bob in the console are one approver', async () => {
    const { h, bob, carol, steps } = await withHook();
    steps.push({ after_s: 0, channel: 'hooks', who: { users: [bob.user.id] } });
    const r = await h.approvals.open(RESTORE);
    const token = await link(h, r);
    expect((await h.call('POST', `/approvals/${r.request_id}/approve`, bob.token, {})).status).toBe(
      200,
    );
    const used = await h.call('POST', '/approvals/link', null, { token });
    expect(used.status, JSON.stringify(used.body)).toBe(409);
    expect(used.body['why']).toBe('already_decided');
    expect(h.approvals.get(r.request_id).status).toBe('pending');
    // Refused before use: the link still works for nothing else, and carol completes it.
    const done = await h.call('POST', `/approvals/${r.request_id}/approve`, carol.token, {});
    expect(req(done.body).status).toBe('approved');

    const r2 = await h.approvals.open(RESTORE);
    const token2 = await link(h, r2);
    const peek = await h.call('GET', `/approvals/link?token=${encodeURIComponent(token2)}`, null);
    expect(peek.body).toMatchObject({ counts_as: 'bob', channel: 'hooks' });
    const first = await h.call('POST', '/approvals/link', null, { token: token2 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body['by']).toBe('bob');
    expect(h.approvals.get(r2.request_id).decisions[0]).toMatchObject({
      by: 'bob',
      by_id: bob.user.id,
      via: 'link',
    });
    const console = await h.call('POST', `/approvals/${r2.request_id}/approve`, bob.token, {});
    expect(console.status).toBe(409);
    expect(console.body['why']).toBe('already_decided');
    expect(h.approvals.get(r2.request_id).status).toBe('pending');
  });

  it('a link sent to a channel of several people counts for no one when the quorum is over 1', async () => {
    const { h, steps } = await withHook();
    steps.push({ after_s: 0, channel: 'hooks', who: { role: 'responder' } });
    const r = await h.approvals.open(RESTORE);
    const token = await link(h, r);
    const used = await h.call('POST', '/approvals/link', null, { token });
    expect(used.status).toBe(409);
    expect(used.body['why']).toBe('person_required');
    expect(h.approvals.get(r.request_id).decisions).toEqual([]);
    // With a quorum of 1 the same kind of link decides, as channel:hooks.
    const one = await h.approvals.open({ ...RESTORE, quorum: 1 });
    const ok = await h.call('POST', '/approvals/link', null, { token: await link(h, one) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body['by']).toBe('channel:hooks');
  });

  it('a link sent to a person who was disabled since is refused', async () => {
    const { h, bob, steps } = await withHook();
    steps.push({ after_s: 0, channel: 'hooks', who: { users: [bob.user.id] } });
    const r = await h.approvals.open({ ...RESTORE, quorum: 1 });
    const token = await link(h, r);
    await h.call('PUT', `/users/${bob.user.id}`, ADMIN_TOKEN, { disabled: true });
    const used = await h.call('POST', '/approvals/link', null, { token });
    expect(used.status).toBe(409);
    expect(used.body['why']).toBe('approver_gone');
    expect(h.approvals.get(r.request_id).status).toBe('pending');
  });
});

describe('item 4: what a pending request relied on', () => {
  it('lowering autonomy withdraws the pending action requests of the services it covers', async () => {
    const h = await serve();
    const { alice, bob, carol } = await admins(h);
    const raise = await h.call('POST', '/autonomy', alice.token, { service: 'web', level: 'L1' });
    const raiseId = (raise.body['request'] as ApprovalRequest).request_id;
    await h.call('POST', `/approvals/${raiseId}/approve`, bob.token, {});
    await h.call('POST', `/approvals/${raiseId}/approve`, carol.token, {});
    expect(h.autonomy.levelOf('web')).toBe('L1');
    const web = await h.approvals.open({ ...RESTORE, quorum: 1 });
    const db = await h.approvals.open({ ...RESTORE, quorum: 1, service: 'db' });
    const lower = await h.call('POST', '/autonomy', alice.token, {
      service: 'web',
      level: 'shadow',
    });
    expect(lower.status).toBe(200);
    expect(h.approvals.get(web.request_id)).toMatchObject({ status: 'withdrawn' });
    expect(h.approvals.get(web.request_id).reason).toContain('autonomy');
    // db was never raised (shadow by default): the request was opened by hand and is not web's.
    expect(h.approvals.get(db.request_id).status).toBe('pending');
    const closed = h.events('approval.closed').find((e) => e.data['request_id'] === web.request_id);
    expect(closed?.actor).toBe('alice');
    expect(closed?.data['by_id']).toBe(alice.user.id);
  });

  it('disabling or demoting an approver withdraws the pending requests they approved', async () => {
    const h = await serve();
    const { bob, carol } = await admins(h);
    const rita = await h.person('rita@example.com', 'responder');
    const r = await h.approvals.open(RESTORE);
    const untouched = await h.approvals.open(RESTORE);
    await h.call('POST', `/approvals/${r.request_id}/approve`, bob.token, {});
    await h.call('POST', `/approvals/${untouched.request_id}/approve`, rita.token, {});
    const off = await h.call('PUT', `/users/${bob.user.id}`, ADMIN_TOKEN, { disabled: true });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(h.approvals.get(r.request_id)).toMatchObject({ status: 'withdrawn' });
    expect(h.approvals.get(untouched.request_id).status).toBe('pending');
    // A demotion below the role a request needs does the same.
    await h.call('PUT', `/users/${rita.user.id}`, ADMIN_TOKEN, { role: 'viewer' });
    expect(h.approvals.get(untouched.request_id)).toMatchObject({ status: 'withdrawn' });
    void carol;
  });
});
