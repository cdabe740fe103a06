// The rules of autonomy against the real stores on a SQLite file: who counts as an approver,
// what is a raise, the re-check when an approved raise is applied, and recovery of a raise
// approved just before a stop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApprovalsService, createApprovalsStore } from '../approvals/index.js';
import { createFakeClock } from '../shared/clock.js';
import { openLedgerBench } from '../testing/ledger-bench.js';
import { createAutonomyService, type PersonRef } from './autonomy.service.js';
import { createAutonomyStore } from './autonomy.store.js';

let dir: string;
const closers: (() => void)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-autonomy-unit-'));
});
afterEach(() => {
  for (const c of closers.splice(0)) c();
  rmSync(dir, { recursive: true, force: true });
});

const person = (name: string, role: PersonRef['role'], disabled = false): PersonRef => ({
  name,
  email: `${name}@example.com`,
  role,
  disabled,
});

function bench(people: PersonRef[]) {
  const clock = createFakeClock('2026-11-22T09:00:00.000Z');
  const b = openLedgerBench(join(dir, 'svc.db'), clock);
  closers.push(() => b.db.close());
  const approvalsStore = createApprovalsStore(b.db);
  const store = createAutonomyStore(b.db);
  b.projections.register(approvalsStore.projection);
  b.projections.register(store.projection);
  const approvals = createApprovalsService({
    store: approvalsStore,
    ledger: b.ledger,
    writer: b.writer,
    clock,
  });
  const make = () =>
    createAutonomyService({
      store,
      ledger: b.ledger,
      writer: b.writer,
      clock,
      approvals,
      people: () => people,
    });
  return { ...b, clock, approvals, store, make };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('autonomy rules', () => {
  it('counts enabled admins and owners other than the requester; the token is no person', () => {
    const { make } = bench([
      person('alice', 'admin'),
      person('bob', 'owner'),
      person('carol', 'admin', true),
      person('rita', 'responder'),
    ]);
    const a = make();
    expect(a.approversFor(null)).toBe(2);
    expect(a.approversFor('admin-token')).toBe(2);
    expect(a.approversFor('alice')).toBe(1);
    expect(a.approversFor('alice@example.com')).toBe(1);
    expect(a.raiseImpossible('alice')).toMatch(/only 1 other person/);
    expect(a.raiseImpossible('rita')).toBeNull();
  });

  it('applies lowering and shadow at once, and asks for L1 and L2', async () => {
    const { make } = bench([
      person('alice', 'admin'),
      person('bob', 'admin'),
      person('c', 'admin'),
    ]);
    const a = make();
    const actor = { name: 'alice' };
    expect(await a.set('web', 'off', actor)).toEqual({
      applied: true,
      service: 'web',
      level: 'off',
    });
    expect(await a.set('web', 'shadow', actor)).toMatchObject({ applied: true });
    expect(await a.set('web', 'L1', actor)).toMatchObject({ applied: false });
    expect(a.levelOf('web')).toBe('shadow');
    await expect(a.set('web', 'L2', actor)).rejects.toMatchObject({
      details: { why: 'already_pending' },
    });
    // Lowering still applies while a raise waits.
    expect(await a.set('web', 'off', actor)).toMatchObject({ applied: true });
    await expect(a.set('  ', 'off', actor)).rejects.toMatchObject({
      details: { field: 'service' },
    });
  });

  it('re-checks an approved raise: a level already at or above it is left alone', async () => {
    const { make, approvals } = bench([
      person('alice', 'admin'),
      person('bob', 'admin'),
      person('carol', 'admin'),
    ]);
    const a = make();
    const asked = await a.set('web', 'L1', { name: 'alice' });
    if (asked.applied) throw new Error('expected a request');
    // Meanwhile the default is raised to L2 by another approved request.
    const def = await a.set('*', 'L2', { name: 'bob' });
    if (def.applied) throw new Error('expected a request');
    for (const who of ['carol', 'alice'])
      await approvals.approve(def.request.request_id, { actor: { name: who }, role: 'admin' });
    await settle();
    expect(a.levelOf('web')).toBe('L2');
    for (const who of ['bob', 'carol'])
      await approvals.approve(asked.request.request_id, { actor: { name: who }, role: 'admin' });
    await settle();
    expect(a.levelOf('web')).toBe('L2');
  });

  it('applies at the next start a raise approved while nothing applied it', async () => {
    const { make, approvals, clock } = bench([
      person('alice', 'admin'),
      person('bob', 'admin'),
      person('carol', 'admin'),
    ]);
    // A request approved while no autonomy service listened (the service stopped).
    const r = await approvals.open({
      kind: 'autonomy',
      title: 'Raise web to L1',
      summary: '',
      service: 'web',
      risk: 'medium',
      episode_id: null,
      subject: { service: 'web', level: 'L1', from: 'shadow' },
      quorum: 2,
      approver_role: 'admin',
      requested_by: 'alice',
    });
    clock.advance(1000);
    for (const who of ['bob', 'carol'])
      await approvals.approve(r.request_id, { actor: { name: who }, role: 'admin' });
    const a = make();
    expect(a.levelOf('web')).toBe('shadow');
    await a.recover();
    expect(a.levelOf('web')).toBe('L1');
    // Once applied, a later lowering is not undone by another start.
    clock.advance(1000);
    await a.set('web', 'off', { name: 'alice' });
    await a.recover();
    expect(a.levelOf('web')).toBe('off');
  });

  it('halts once, resumes once', async () => {
    const { make } = bench([]);
    const a = make();
    expect(a.halted()).toBe(false);
    const h = await a.halt(' stop ', { name: 'rita' });
    expect(h.halted).toMatchObject({ reason: 'stop', by: 'rita' });
    expect(a.haltState()).toMatchObject({ reason: 'stop' });
    expect(await a.resume({ name: 'alice' })).toEqual({ halted: null });
    expect(await a.resume({ name: 'alice' })).toEqual({ halted: null });
    await expect(a.halt(' ', { name: 'rita' })).rejects.toMatchObject({
      details: { field: 'reason' },
    });
  });
});
