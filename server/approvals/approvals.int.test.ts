// Approvals over real HTTP on a real SQLite file: the two-person rule, deny and withdraw,
// roles, the list with facets and the query language, signed single-use links, escalation
// to a real webhook connector with a local receiver, expiry, the lab approver, the mode
// gate, the doctor checks, and a rebuild from the ledger that equals the live tables.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookKind } from '../connectors/index.js';
import { dumpProjections, rebuildProjections } from '../ledger/index.js';
import type { Mode } from '../shared/mode.js';
import { labApproverCheck, pendingCheck } from './approvals-checks.js';
import { APPROVAL_QUERY_FIELDS } from './approvals.store.js';
import {
  ADMIN_TOKEN,
  serveApprovals,
  type Harness,
  type HarnessOptions,
} from '../testing/approvals/approvals.js';
import type { ApprovalRequest, OpenApproval } from './types.js';

let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-approvals-'));
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(options: Omit<HarnessOptions, 'dir'> = {}): Promise<Harness> {
  const h = await serveApprovals({ dir, ...options });
  closers.push(h.close);
  return h;
}

const ACTION: OpenApproval = {
  kind: 'action',
  title: 'Restart nginx on web-1',
  summary: 'nginx workers are stuck; a restart clears them.',
  service: 'web',
  risk: 'low',
  episode_id: 'ep-20261122T090000Z-abc123',
  subject: { pack: 'nginx', fix: 'restart', connector: 'web-1', op: 'restart', args: {} },
  quorum: 1,
  approver_role: 'responder',
  requested_by: 'system',
};

const req = (body: Record<string, unknown>) => body as unknown as ApprovalRequest;

describe('the two-person rule', () => {
  it('never lets the requester approve, counts each approver once, and approves at the quorum', async () => {
    const h = await serve();
    const alice = await h.person('alice@example.com', 'responder');
    const bob = await h.person('bob@example.com', 'responder');
    const carol = await h.person('carol@example.com', 'admin');
    const closed: ApprovalRequest[] = [];
    h.approvals.onDecided('action', (r) => {
      closed.push(r);
    });
    const r = await h.approvals.open({ ...ACTION, quorum: 2, requested_by: alice.name });

    const own = await h.call('POST', `/approvals/${r.request_id}/approve`, alice.token, {});
    expect(own.status).toBe(409);
    expect(own.body).toMatchObject({ why: 'own_request' });

    const first = await h.call('POST', `/approvals/${r.request_id}/approve`, bob.token, {
      reason: 'looks right',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(req(first.body).status).toBe('pending');
    expect(req(first.body).decisions).toEqual([
      {
        by: 'bob',
        by_id: bob.user.id,
        decision: 'approve',
        at: expect.any(String) as string,
        via: 'console',
        reason: 'looks right',
      },
    ]);

    const twice = await h.call('POST', `/approvals/${r.request_id}/approve`, bob.token, {});
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ why: 'already_decided' });
    expect(h.approvals.get(r.request_id).status).toBe('pending');

    // The admin token acting for someone who is no person is refused, naming by.
    const asZed = await h.call('POST', `/approvals/${r.request_id}/approve`, ADMIN_TOKEN, {
      by: 'zed',
    });
    expect(asZed.body).toMatchObject({ field: 'by' });

    const second = await h.call('POST', `/approvals/${r.request_id}/approve`, carol.token);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(req(second.body)).toMatchObject({ status: 'approved', reason: null });
    expect(req(second.body).closed_at).not.toBeNull();
    expect(closed.map((c) => [c.request_id, c.status])).toEqual([[r.request_id, 'approved']]);

    const after = await h.call('POST', `/approvals/${r.request_id}/approve`, alice.token, {});
    expect(after.body).toMatchObject({ why: 'not_pending' });

    const decided = h.events('approval.decided');
    expect(decided.map((e) => [e.actor, e.data['decision'], e.trace_id])).toEqual([
      ['bob', 'approve', ACTION.episode_id],
      ['carol', 'approve', ACTION.episode_id],
    ]);
    expect(decided[0]?.data['subject_sha256']).toBe(r.subject_sha256);
    expect(h.events('approval.closed').map((e) => e.data)).toEqual([
      { request_id: r.request_id, status: 'approved', reason: null, by_id: carol.user.id },
    ]);
  });

  it('asks for the role the request names: 403 naming it', async () => {
    const h = await serve();
    const viewer = await h.person('vic@example.com', 'viewer');
    const responder = await h.person('rita@example.com', 'responder');
    const action = await h.approvals.open(ACTION);
    const v = await h.call('POST', `/approvals/${action.request_id}/approve`, viewer.token, {});
    expect(v.status).toBe(403);
    expect(v.body).toMatchObject({ error: 'role_required', role: 'responder' });
    const raise = await h.approvals.open({
      ...ACTION,
      kind: 'autonomy',
      approver_role: 'admin',
      quorum: 2,
      subject: { service: 'web', level: 'L1', from: 'shadow' },
    });
    const r = await h.call('POST', `/approvals/${raise.request_id}/approve`, responder.token, {});
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ role: 'admin' });
    expect(String(r.body['message'])).toContain('admin');
    const anon = await h.call('POST', `/approvals/${action.request_id}/approve`, null, {});
    expect(anon.status).toBe(401);
  });

  it('ends a request at one deny, with its reason; a deny needs a reason', async () => {
    const h = await serve();
    const bob = await h.person('bob@example.com', 'responder');
    const r = await h.approvals.open({ ...ACTION, quorum: 2 });
    const bad = await h.call('POST', `/approvals/${r.request_id}/deny`, bob.token, {});
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_input', field: 'reason' });
    const denied = await h.call('POST', `/approvals/${r.request_id}/deny`, bob.token, {
      reason: 'not during the sale',
    });
    expect(denied.status).toBe(200);
    expect(req(denied.body)).toMatchObject({ status: 'denied', reason: 'not during the sale' });
    const ledgerReason = h.events('approval.closed')[0];
    expect(ledgerReason).toMatchObject({ actor: 'bob', reason: 'not during the sale' });
  });
});

describe('withdraw', () => {
  it('withdraws a pending request, and answers 404 when none is pending', async () => {
    const h = await serve();
    const bob = await h.person('bob@example.com', 'responder');
    const r = await h.approvals.open(ACTION);
    const w = await h.call('POST', `/approvals/${r.request_id}/withdraw`, bob.token, {
      reason: 'fixed by hand',
    });
    expect(w.status).toBe(200);
    expect(req(w.body)).toMatchObject({ status: 'withdrawn', reason: 'fixed by hand' });
    const again = await h.call('POST', `/approvals/${r.request_id}/withdraw`, bob.token, {});
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: 'not_pending' });
    const unknown = await h.call('POST', '/approvals/ap-nope/withdraw', bob.token, {});
    expect(unknown.status).toBe(404);
    // Without a body at all.
    const r2 = await h.approvals.open(ACTION);
    const bare = await h.call('POST', `/approvals/${r2.request_id}/withdraw`, bob.token);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
  });
});

describe('GET /v1/approvals', () => {
  it('lists with facets (each without its own filter), the query language, and 400s naming the field', async () => {
    const h = await serve();
    const bob = await h.person('bob@example.com', 'responder');
    const a = await h.approvals.open(ACTION);
    h.clock.advance(1000);
    const b = await h.approvals.open({
      ...ACTION,
      risk: 'high',
      service: 'db',
      title: 'Failover db',
    });
    h.clock.advance(1000);
    await h.approvals.open({ ...ACTION, risk: 'medium', service: 'api' });
    await h.approvals.deny(b.request_id, { actor: { name: 'bob' }, role: 'responder' }, 'no');

    const all = await h.call('GET', '/approvals', bob.token);
    expect(all.status).toBe(200);
    expect(all.body['total']).toBe(3);
    expect((all.body['requests'] as ApprovalRequest[])[0]?.service).toBe('api');
    expect(all.body['facets']).toEqual({
      status: { pending: 2, approved: 0, denied: 1, withdrawn: 0, expired: 0 },
      risk: { low: 1, medium: 1, high: 1 },
      kind: { action: 3, autonomy: 0, fix_mode: 0 },
    });

    const pending = await h.call('GET', '/approvals?status=pending&risk=low', bob.token);
    expect(pending.body['total']).toBe(1);
    expect((pending.body['requests'] as ApprovalRequest[])[0]?.request_id).toBe(a.request_id);
    expect(pending.body['facets']).toMatchObject({
      // status counts ignore the status filter, risk counts ignore the risk filter
      status: { pending: 1, denied: 0 },
      risk: { low: 1, medium: 1, high: 0 },
    });

    const q = await h.call('GET', `/approvals?q=failover`, bob.token);
    expect((q.body['requests'] as ApprovalRequest[]).map((r) => r.request_id)).toEqual([
      b.request_id,
    ]);
    const query = await h.call(
      'GET',
      `/approvals?query=${encodeURIComponent('service:db OR risk:medium')}&sort=requested_at`,
      bob.token,
    );
    expect((query.body['requests'] as ApprovalRequest[]).map((r) => r.service)).toEqual([
      'db',
      'api',
    ]);
    const data = await h.call(
      'GET',
      `/approvals?query=${encodeURIComponent('data.fix:restart decided_by:bob')}`,
      bob.token,
    );
    expect(data.body['total']).toBe(1);

    const badQuery = await h.call(
      'GET',
      `/approvals?query=${encodeURIComponent('colour:red')}`,
      bob.token,
    );
    expect(badQuery.status).toBe(400);
    expect(badQuery.body['error']).toBe('bad_query');
    const badStatus = await h.call('GET', '/approvals?status=maybe', bob.token);
    expect(badStatus.status).toBe(400);
    expect(badStatus.body['field']).toBe('status');
    const badSort = await h.call('GET', '/approvals?sort=colour', bob.token);
    expect(badSort.body['field']).toBe('sort');
    const badSince = await h.call('GET', '/approvals?since=2026-12-01&until=2026-11-01', bob.token);
    expect(badSince.body['field']).toBe('until');
    const window = await h.call(
      'GET',
      `/approvals?since=${encodeURIComponent('2026-11-22T09:00:01Z')}`,
      bob.token,
    );
    expect(window.body['total']).toBe(2);

    const one = await h.call('GET', `/approvals/${a.request_id}`, bob.token);
    expect(one.status).toBe(200);
    expect(req(one.body).subject).toEqual(ACTION.subject);
    expect((await h.call('GET', '/approvals/ap-none', bob.token)).status).toBe(404);
  });

  it('accepts every field it names for the query language', async () => {
    const h = await serve();
    await h.approvals.open(ACTION);
    const sample: Record<string, string> = { time: '2026-11-22', integer: '1', seconds: '5m' };
    for (const [name, f] of Object.entries(APPROVAL_QUERY_FIELDS.fields)) {
      const value = f.values?.[0] ?? sample[f.type] ?? 'x';
      for (const query of [`${name}:${value}`, `-${name}:${value}`]) {
        const res = await h.call(
          'GET',
          `/approvals?query=${encodeURIComponent(query)}`,
          ADMIN_TOKEN,
        );
        expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
      }
    }
  });

  it('answers 503 in setup, and works from configuring on', async () => {
    let mode: Mode = 'setup';
    const h = await serve({ mode: () => mode });
    const res = await h.call('GET', '/approvals', ADMIN_TOKEN);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'not operating yet', mode: 'setup' });
    expect((await h.call('POST', '/approvals/link', null, { token: 'x.y' })).status).toBe(503);
    mode = 'configuring';
    expect((await h.call('GET', '/approvals', ADMIN_TOKEN)).status).toBe(200);
  });
});

describe('escalation through a real webhook connector, and its signed links', () => {
  const received: { url: string; body: Record<string, unknown> }[] = [];
  let receiver: Server;
  let receiverUrl: string;
  beforeAll(async () => {
    receiver = createServer((r, res) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<
          string,
          unknown
        >;
        received.push({ url: r.url ?? '', body });
        if ((r.url ?? '').startsWith('/boom')) res.writeHead(500).end('down for maintenance');
        else res.writeHead(204).end();
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

  async function withHooks(steps: NonNullable<HarnessOptions['steps']>): Promise<Harness> {
    writeFileSync(
      join(dir, 'connectors.json'),
      JSON.stringify({
        connectors: {
          hooks: { kind: 'webhook', settings: { url: `${receiverUrl}/hook` } },
          broken: { kind: 'webhook', settings: { url: `${receiverUrl}/boom` } },
        },
      }),
    );
    const h = await serve({ kinds: [webhookKind], steps });
    h.escalation.start();
    return h;
  }
  const sent = () => received.filter((r) => r.body['type'] === 'approval.requested');
  const tokenOf = (url: unknown): string => new URL(String(url)).searchParams.get('token') ?? '';

  it('sends when a request opens and at each step, records approval.sent, and never twice', async () => {
    const h = await withHooks([
      { after_s: 0, channel: 'hooks' },
      { after_s: 300, channel: 'broken' },
      { after_s: 600, channel: 'hooks' },
    ]);
    const r = await h.approvals.open(ACTION);
    await h.escalation.tick();
    expect(sent()).toHaveLength(1);
    const first = sent()[0]?.body ?? {};
    expect(first).toMatchObject({
      request_id: r.request_id,
      title: ACTION.title,
      risk: 'low',
      service: 'web',
      expires_at: r.expires_at,
    });
    expect(String(first['approve_url'])).toMatch(
      new RegExp(`^${h.base()}/approvals/link\\?token=`),
    );
    expect(tokenOf(first['approve_url'])).not.toBe(tokenOf(first['deny_url']));
    await h.escalation.tick();
    expect(sent()).toHaveLength(1);

    h.clock.advance(300_000);
    await h.escalation.tick();
    h.clock.advance(300_000);
    await h.escalation.tick();
    await h.escalation.tick();
    expect(sent().map((s) => s.url)).toEqual(['/hook', '/boom', '/hook']);
    const channels = h.approvals.get(r.request_id).channels;
    expect(channels.map((c) => [c.channel, c.step, c.ok])).toEqual([
      ['hooks', 0, true],
      ['broken', 1, false],
      ['hooks', 2, true],
    ]);
    expect(channels[1]?.detail).toContain('500');
    expect(channels[0]?.detail).toContain('204');
    // No token reaches the ledger.
    const tokens = sent().flatMap((s) => [
      tokenOf(s.body['approve_url']),
      tokenOf(s.body['deny_url']),
    ]);
    const ledgerText = JSON.stringify(h.events());
    for (const t of tokens) expect(ledgerText).not.toContain(t);
    expect(h.events('approval.sent')).toHaveLength(3);
  });

  it('redeems a link once, as channel:<connector>; replays, the other link, forged and expired links are refused', async () => {
    const h = await withHooks([{ after_s: 0, channel: 'hooks' }]);
    const r = await h.approvals.open(ACTION);
    await h.escalation.tick();
    const msg = sent()[0]?.body ?? {};
    const approve = tokenOf(msg['approve_url']);
    const deny = tokenOf(msg['deny_url']);

    const peek = await h.call('GET', `/approvals/link?token=${encodeURIComponent(approve)}`, null);
    expect(peek.status, JSON.stringify(peek.body)).toBe(200);
    expect(peek.body).toMatchObject({ decision: 'approve', channel: 'hooks' });
    expect(h.approvals.get(r.request_id).status).toBe('pending');

    const forged = await h.call('POST', '/approvals/link', null, {
      token: `${approve.slice(0, -3)}AAA`,
    });
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ error: 'bad_link', field: 'token', why: 'bad_signature' });
    const junk = await h.call('POST', '/approvals/link', null, { token: 'not a token' });
    expect(junk.status).toBe(400);

    const used = await h.call('POST', '/approvals/link', null, { token: approve });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    expect(used.body).toMatchObject({ decision: 'approve', by: 'channel:hooks' });
    expect(h.approvals.get(r.request_id)).toMatchObject({ status: 'approved' });
    expect(h.approvals.get(r.request_id).decisions[0]).toMatchObject({
      by: 'channel:hooks',
      via: 'link',
    });

    const replay = await h.call('POST', '/approvals/link', null, { token: approve });
    expect(replay.status).toBe(409);
    expect(replay.body['why']).toBe('already_used');
    const other = await h.call('POST', '/approvals/link', null, { token: deny });
    expect(other.status).toBe(409);
    expect(other.body['why']).toBe('already_used');

    // A link whose request is already decided in the console is refused and stays unused.
    const r2 = await h.approvals.open(ACTION);
    await h.escalation.tick();
    const msg2 = sent()[1]?.body ?? {};
    await h.approvals.deny(r2.request_id, { actor: { name: 'bob' }, role: 'responder' }, 'no');
    const late = await h.call('POST', '/approvals/link', null, {
      token: tokenOf(msg2['approve_url']),
    });
    expect(late.status).toBe(409);
    expect(late.body['why']).toBe('not_pending');

    // Expired: the link's time is up.
    const r3 = await h.approvals.open({ ...ACTION, ttl_s: 60 });
    await h.escalation.tick();
    const msg3 = sent()[2]?.body ?? {};
    h.clock.advance(61_000);
    const expired = await h.call('POST', '/approvals/link', null, {
      token: tokenOf(msg3['deny_url']),
    });
    expect(expired.status).toBe(409);
    expect(expired.body['why']).toBe('expired');
    expect(h.approvals.get(r3.request_id).status).toBe('pending');
    await h.escalation.tick();
    expect(h.approvals.get(r3.request_id)).toMatchObject({ status: 'expired' });
    expect(h.events('approval.closed').at(-1)).toMatchObject({ actor: 'system' });
  });

  it('sends requests that need admins with the console page of the request, not links', async () => {
    const h = await withHooks([{ after_s: 0, channel: 'hooks' }]);
    const r = await h.approvals.open({
      ...ACTION,
      kind: 'fix_mode',
      approver_role: 'admin',
      quorum: 2,
      subject: { mode: 'draft', from: 'advise' },
    });
    await h.escalation.tick();
    const msg = sent()[0]?.body ?? {};
    expect(msg['approve_url']).toBe(`${h.base()}/approvals/${r.request_id}`);
    expect(msg['deny_url']).toBe(msg['approve_url']);
    expect(String(msg['summary'])).toContain('admin');
  });
});

describe('the lab approver', () => {
  it('approves pending action requests as lab-approver, never autonomy or fix mode ones', async () => {
    const h = await serve({ labApprover: true });
    h.labApprover.start();
    const a = await h.approvals.open(ACTION);
    const raise = await h.approvals.open({
      ...ACTION,
      kind: 'autonomy',
      approver_role: 'admin',
      quorum: 2,
      subject: { service: 'web', level: 'L2', from: 'shadow' },
    });
    h.timers.fireAll();
    await new Promise((r) => setTimeout(r, 50));
    expect(h.approvals.get(a.request_id)).toMatchObject({ status: 'approved' });
    expect(h.approvals.get(a.request_id).decisions[0]).toMatchObject({
      by: 'lab-approver',
      via: 'lab-approver',
    });
    expect(h.approvals.get(raise.request_id).status).toBe('pending');
    expect(labApproverCheck({ enabled: true }).run()).toMatchObject({ status: 'fail' });
    expect(labApproverCheck({ enabled: false }).run()).toMatchObject({ status: 'ok' });
  });

  it('does nothing when off', async () => {
    const h = await serve({ labApprover: false });
    h.labApprover.start();
    const a = await h.approvals.open(ACTION);
    h.timers.fireAll();
    await new Promise((r) => setTimeout(r, 20));
    expect(h.approvals.get(a.request_id).status).toBe('pending');
  });
});

describe('doctor and rebuild', () => {
  it('warns when something is pending over one hour', async () => {
    const h = await serve();
    const check = pendingCheck({ pending: () => h.approvals.pending(), clock: h.clock });
    expect(await check.run()).toMatchObject({ status: 'ok', detail: 'nothing pending' });
    const r = await h.approvals.open(ACTION);
    expect(await check.run()).toMatchObject({ status: 'ok' });
    h.clock.advance(3_601_000);
    const warn = await check.run();
    expect(warn.status).toBe('warn');
    expect(warn.detail).toContain(r.request_id);
    expect(check).toMatchObject({ area: 'Approvals', name: 'pending' });
  });

  it('rebuilds the approvals tables from the ledger alone', async () => {
    const h = await serve();
    const bob = await h.person('bob@example.com', 'responder');
    const a = await h.approvals.open({ ...ACTION, quorum: 2 });
    await h.call('POST', `/approvals/${a.request_id}/approve`, bob.token, {});
    const b = await h.approvals.open(ACTION);
    await h.call('POST', `/approvals/${b.request_id}/withdraw`, bob.token, { reason: 'no' });
    await h.approvals.recordSent({
      request_id: a.request_id,
      channel: 'hooks',
      step: 0,
      ok: true,
      detail: 'sent',
      link_ids: ['00ff'],
    });
    const before = dumpProjections(h.db, h.projections);
    const result = rebuildProjections(h.db, h.ledgerStore, h.projections, false, (fn) => {
      h.writer.transactNow(fn);
    });
    expect(result.differing).toEqual([]);
    expect(dumpProjections(h.db, h.projections)).toEqual(before);
  });
});
