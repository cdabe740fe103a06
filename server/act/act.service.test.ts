// The executor against a real ledger (a migrated SQLite file) with a fake connector, clock
// and checks: every path of execute (refusals, verified, verify failed and taken back, the
// alert that does not end, a failing action, a take-back under halt), dry runs and shadow,
// and every event carrying the episode as its trace id.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { openLedgerBench, type LedgerBench } from '../testing/ledger-bench.js';
import type { ActDeps, ActionPlan, Finding, PackFix, PolicyNow } from './act.types.js';
import { createActions, fillCall, judge, planMissing, subjectOf } from './act.service.js';

const EPISODE = 'ep-20261122T100000Z-abc123';

const FIX: PackFix = {
  id: 'restart_unit',
  title: 'Restart {service}',
  risk: 'low',
  connector: 'ssh',
  kind: 'fix',
  dry_run: { op: 'dry_run', args: { action: 'restart', arg: '{service}' } },
  action: { op: 'restart', args: { unit: '{service}' } },
  verify: {
    expect: ['host.services.unit_running'],
    expect_absent: ['host.services.unit_down'],
    within_s: 10,
    alert_ends_within_s: 0,
  },
  take_back: { op: 'clear_cache', args: { name: '{service}-cache' } },
};

const plan = (fix: Partial<PackFix> = {}, over: Partial<ActionPlan> = {}): ActionPlan => ({
  episode_id: EPISODE,
  service: 'app',
  pack: 'host',
  fix: { ...FIX, ...fix },
  connector: 'ssh-app',
  vars: { service: 'app' },
  ...over,
});

const finding = (id: string, readable = true): Finding => ({
  id,
  check: id.slice(0, id.lastIndexOf('.')),
  connector: 'ssh-app',
  call: 'services {}',
  service: 'app',
  says: id,
  values: {},
  excerpt: '',
  at: '2026-11-22T10:00:00.000Z',
  readable,
});

const ALLOWED: PolicyNow = {
  changeWindow: null,
  permission: { allowed: true, safe: true, why: 'allowed' },
};

let dir: string;
let bench: LedgerBench;
let clock: ReturnType<typeof createFakeClock>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-act-'));
  clock = createFakeClock('2026-11-22T10:00:00.000Z');
  bench = openLedgerBench(join(dir, 'svc.db'), clock);
});
afterEach(async () => {
  await bench.writer.close();
  bench.db.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  halted?: () => boolean;
  policy?: PolicyNow;
  /** findings per reading; the last repeats */
  readings?: Finding[][];
  alertEnded?: () => boolean;
  fail?: Record<string, string>;
  autonomy?: ActDeps['autonomy'];
  approvalStands?: ActDeps['approvalStands'];
}

function setup(s: Setup = {}) {
  const calls: string[] = [];
  const rechecks: string[][] = [];
  let reading = 0;
  const actions = createActions({
    call: async (connector, op, args) => {
      calls.push(`${connector} ${op} ${JSON.stringify(args)}`);
      const err = s.fail?.[op];
      if (err !== undefined) throw new Error(err);
      return { ok: true, output: `${op} done` };
    },
    ledger: bench.ledger,
    writer: bench.writer,
    clock,
    halted: s.halted ?? (() => false),
    policyNow: () => s.policy ?? ALLOWED,
    recheck: async (ids) => {
      rechecks.push([...ids]);
      const all = s.readings ?? [[finding('host.services.unit_running')]];
      const r = all[Math.min(reading, all.length - 1)] ?? [];
      reading += 1;
      return r;
    },
    alertEnded: s.alertEnded ?? (() => true),
    ...(s.autonomy && { autonomy: s.autonomy }),
    ...(s.approvalStands && { approvalStands: s.approvalStands }),
    // Sleeping moves the fake clock: verification windows pass at once.
    sleep: async (ms) => {
      clock.advance(ms);
    },
    verifyEveryMs: 2000,
  });
  const events = () =>
    bench.ledgerStore.range(0, bench.ledgerStore.head().seq, 100).map((e) => ({
      type: e.type,
      data: JSON.parse(e.data) as Record<string, unknown>,
      trace_id: e.trace_id,
    }));
  return { actions, calls, rechecks, events };
}

describe('templates', () => {
  it('fills placeholders: a whole one keeps its type, inner ones become text, missing are named', () => {
    expect(
      fillCall(
        { op: 'x', args: { a: '{n}', b: 'unit-{service}', c: 3, d: '{nope}', e: 'x{also}' } },
        { n: 5, service: 'app' },
      ),
    ).toEqual({
      call: { op: 'x', args: { a: 5, b: 'unit-app', c: 3, d: '{nope}', e: 'x{also}' } },
      missing: ['nope', 'also'],
    });
    expect(planMissing(plan({}, { vars: {} }))).toEqual(['service']);
    expect(planMissing(plan())).toEqual([]);
    expect(subjectOf(plan())).toEqual({
      pack: 'host',
      fix: 'restart_unit',
      connector: 'ssh-app',
      op: 'restart',
      args: { unit: 'app' },
    });
  });

  it('judges a reading: an absent finding proves nothing when its check was unreadable', () => {
    const v = { expect: ['a.b.up'], expect_absent: ['a.c.down'] };
    expect(judge(v, [finding('a.b.up')]).ok).toBe(true);
    expect(judge(v, [finding('a.b.up'), finding('a.c.down')])).toMatchObject({ ok: false, present: ['a.c.down'] }); // prettier-ignore
    expect(judge(v, [finding('a.b.up'), finding('a.c.unreadable', false)])).toMatchObject({
      ok: false,
      unreadable: ['a.c.down'],
    });
    expect(judge(v, [finding('a.b.up', false)])).toMatchObject({ ok: false, missing: ['a.b.up'] });
  });
});

describe('dry run and shadow', () => {
  it('dry-runs through the connector and records it; a refusal is ok false', async () => {
    const { actions, calls, events } = setup({ fail: {} });
    expect(await actions.dryRun(plan({}, { request_id: 'ap-1' }))).toEqual({
      ok: true,
      detail: 'dry_run done',
      call: 'dry_run {"action":"restart","arg":"app"}',
    });
    expect(calls).toEqual(['ssh-app dry_run {"action":"restart","arg":"app"}']);
    const refused = setup({ fail: { dry_run: 'refused by the gate: restart app is not allowed' } });
    expect(await refused.actions.dryRun(plan())).toMatchObject({
      ok: false,
      detail: 'refused by the gate: restart app is not allowed',
    });
    expect(events().map((e) => [e.type, e.data['ok'], e.data['request_id']])).toEqual([
      ['action.dry_run', true, 'ap-1'],
      ['action.dry_run', false, undefined],
    ]);
    expect(events()[0]?.data).toMatchObject({
      episode_id: EPISODE,
      fix: {
        pack: 'host',
        id: 'restart_unit',
        title: 'Restart {service}',
        risk: 'low',
        kind: 'fix',
      },
      connector: 'ssh-app',
    });
  });

  it('a fix without a dry run passes it without a call', async () => {
    const { actions, calls } = setup();
    expect(await actions.dryRun(plan({ dry_run: null }))).toMatchObject({ ok: true, call: null });
    expect(calls).toEqual([]);
  });

  it('shadow records what would run and calls nothing', async () => {
    const { actions, calls, events, rechecks } = setup();
    await actions.shadow(plan(), 'ask');
    expect(calls).toEqual([]);
    expect(rechecks).toEqual([]);
    expect(events()).toEqual([
      {
        type: 'action.shadow',
        trace_id: EPISODE,
        data: expect.objectContaining({ connector: 'ssh-app', call: 'restart {"unit":"app"}', would: 'ask' }) as unknown,
      },
    ]); // prettier-ignore
  });
});

describe('execute', () => {
  it('refuses when halted, whatever was approved, and calls nothing', async () => {
    const { actions, calls, events } = setup({ halted: () => true });
    expect(await actions.execute(plan({}, { request_id: 'ap-7' }))).toEqual({
      result: 'refused_halt',
      detail: 'actions are halted',
      findings: [],
    });
    expect(calls).toEqual([]);
    expect(events()).toEqual([
      {
        type: 'action.refused',
        trace_id: EPISODE,
        data: expect.objectContaining({ why: 'halted', request_id: 'ap-7' }) as unknown,
      },
    ]);
  });

  it('a halt that commits just before the call stops it: checked where action.started is', async () => {
    let halted = false;
    const { actions, calls, events } = setup({ halted: () => halted });
    // The halt's transaction is queued first; the check must see it.
    const halt = bench.writer.transact(() => {
      halted = true;
    });
    const out = await actions.execute(plan());
    await halt;
    expect(out.result).toBe('refused_halt');
    expect(calls).toEqual([]);
    expect(events().map((e) => e.type)).toEqual(['action.refused']);
  });

  it('re-checks autonomy, fix mode and every approver at execution, and calls nothing when one fails', async () => {
    const cases: [Setup, Partial<PackFix>, Partial<ActionPlan>, string][] = [
      [{ autonomy: { levelOf: () => 'shadow', fixMode: () => 'draft' } }, {}, { request_id: 'ap-1' }, 'autonomy'],
      [{ autonomy: { levelOf: () => 'L1', fixMode: () => 'draft' } }, {}, {}, 'autonomy'],
      [{ autonomy: { levelOf: () => 'L2', fixMode: () => 'advise' } }, { kind: 'restore' }, { request_id: 'ap-1' }, 'fix_mode'],
      [{ approvalStands: () => 'bob, who approved it, is disabled' }, {}, { request_id: 'ap-1' }, 'approval'],
    ]; // prettier-ignore
    for (const [s, fix, over, why] of cases) {
      const { actions, calls, events } = setup(s);
      const out = await actions.execute(plan(fix, over));
      expect(out.result, why).toBe('refused_policy');
      expect(calls, why).toEqual([]);
      expect(events().at(-1)?.data, why).toMatchObject({ why });
    }
    const ok = setup({
      autonomy: { levelOf: () => 'L1', fixMode: () => 'advise' },
      approvalStands: () => null,
    });
    expect((await ok.actions.execute(plan({}, { request_id: 'ap-1' }))).result).toBe('verified');
  });

  it('refuses when the policy no longer allows the fix', async () => {
    const { actions, calls, events } = setup({
      policy: { changeWindow: null, permission: { allowed: false, safe: false, why: 'no action rule names fix restart_unit on service app' } },
    }); // prettier-ignore
    expect((await actions.execute(plan())).result).toBe('refused_policy');
    expect(calls).toEqual([]);
    expect(events()[0]?.data).toMatchObject({ why: 'policy', detail: 'no action rule names fix restart_unit on service app' }); // prettier-ignore
  });

  it('refuses inside a change window, naming it and its end', async () => {
    const { actions, calls, events } = setup({
      policy: { ...ALLOWED, changeWindow: { name: 'black-friday', until: '2026-11-30T00:00:00.000Z' } },
    }); // prettier-ignore
    expect(await actions.execute(plan())).toEqual({
      result: 'refused_change',
      detail: 'change window black-friday forbids actions on app until 2026-11-30T00:00:00.000Z',
      findings: [],
    });
    expect(calls).toEqual([]);
    expect(events()[0]?.data).toMatchObject({ why: 'change_window' });
  });

  it('runs, re-reads until the checks show the fix worked, and records verified', async () => {
    const { actions, calls, rechecks, events } = setup({
      readings: [
        [finding('host.services.unit_down')],
        [finding('host.services.unit_running'), finding('host.services.unit_down')],
        [finding('host.services.unit_running')],
      ],
    });
    const out = await actions.execute(plan());
    expect(out).toEqual({
      result: 'verified',
      detail: 'read host.services.unit_running; no longer read host.services.unit_down',
      findings: ['host.services.unit_running'],
    });
    expect(calls).toEqual(['ssh-app restart {"unit":"app"}']);
    expect(rechecks).toEqual([['host.services'], ['host.services'], ['host.services']]);
    const ev = events();
    expect(ev.map((e) => e.type)).toEqual(['action.started', 'action.done', 'action.verified']);
    expect(ev.every((e) => e.trace_id === EPISODE && e.data['episode_id'] === EPISODE)).toBe(true);
    expect(ev[1]?.data).toMatchObject({ ok: true, detail: 'restart done', call: 'restart {"unit":"app"}' }); // prettier-ignore
  });

  it('takes the fix back when verification does not pass within within_s', async () => {
    const { actions, calls, rechecks, events } = setup({
      readings: [[finding('host.services.unit_running'), finding('host.services.unit_down')]],
    });
    const started = clock.now();
    const out = await actions.execute(plan());
    expect(out.result).toBe('taken_back');
    expect(out.detail).toBe(
      'not verified: after 10 s, still read: host.services.unit_down; taken back (clear_cache {"name":"app-cache"})',
    );
    // Readings every 2 s over the 10 s window: at 0, 2, 4, 6, 8 and 10 s.
    expect(rechecks).toHaveLength(6);
    expect(clock.now() - started).toBe(10_000);
    expect(calls).toEqual(['ssh-app restart {"unit":"app"}', 'ssh-app clear_cache {"name":"app-cache"}']); // prettier-ignore
    expect(events().map((e) => e.type)).toEqual([
      'action.started',
      'action.done',
      'action.verify_failed',
      'action.taken_back',
    ]);
    expect(events()[3]?.data).toMatchObject({ call: 'clear_cache {"name":"app-cache"}', ok: true });
  });

  it('an unreadable check never verifies an expected absence', async () => {
    const { actions } = setup({
      readings: [
        [finding('host.services.unit_running'), finding('host.services.unreadable', false)],
      ],
    });
    const out = await actions.execute(
      plan({ verify: { ...FIX.verify, expect: [] }, take_back: null }),
    );
    expect(out).toMatchObject({ result: 'not_verified' });
    expect(out.detail).toMatch(
      /could not be read: host\.services\.unit_down; the fix has no take-back/,
    );
  });

  it('waits for the alert to end, and fails verification when it does not', async () => {
    let checks = 0;
    const ends = setup({ alertEnded: () => ++checks >= 3 });
    const ok = await ends.actions.execute(
      plan({ verify: { ...FIX.verify, alert_ends_within_s: 30 } }),
    );
    expect(ok.result).toBe('verified');
    expect(ok.detail).toMatch(/; the alert ended$/);

    const never = setup({ alertEnded: () => false });
    const out = await never.actions.execute(
      plan({ verify: { ...FIX.verify, alert_ends_within_s: 30 }, take_back: null }),
    );
    expect(out.result).toBe('not_verified');
    expect(out.detail).toMatch(/the alert did not end within 30 s; the fix has no take-back$/);
  });

  it('a failing action is recorded, not verified and not taken back blindly', async () => {
    const { actions, calls, events } = setup({ fail: { restart: 'restart app on h:22 failed (status 1)' } }); // prettier-ignore
    const out = await actions.execute(plan());
    expect(out).toEqual({
      result: 'not_verified',
      detail: 'the action failed: restart app on h:22 failed (status 1)',
      findings: [],
    });
    expect(calls).toEqual(['ssh-app restart {"unit":"app"}']);
    expect(events().map((e) => [e.type, e.data['ok']])).toEqual([
      ['action.started', undefined],
      ['action.done', false],
      ['action.verify_failed', undefined],
    ]);
  });

  it('does not take back under a halt that came during verification, nor when the take-back fails', async () => {
    // The halt comes once the action was called, while it is verified.
    const h = setup({
      halted: () => h.calls.length > 0,
      readings: [[finding('host.services.unit_down')]],
    });
    const out = await h.actions.execute(plan());
    expect(out.result).toBe('not_verified');
    expect(out.detail).toMatch(/the take-back did not run \(halted\)$/);
    expect(h.calls).toEqual(['ssh-app restart {"unit":"app"}']);
    expect(h.events().map((e) => e.type)).toEqual([
      'action.started',
      'action.done',
      'action.verify_failed',
      'action.refused',
    ]);

    const f = setup({ readings: [[]], fail: { clear_cache: 'refused by the gate: nope' } });
    const failed = await f.actions.execute(plan());
    expect(failed.result).toBe('not_verified');
    expect(failed.detail).toMatch(/the take-back failed: refused by the gate: nope$/);
    expect(f.events().at(-1)).toMatchObject({ type: 'action.taken_back', data: { ok: false } });
  });

  it('refuses to run a fix whose templates name a value not read', async () => {
    const { actions, calls } = setup();
    await expect(actions.execute(plan({}, { vars: {} }))).rejects.toThrow(
      'fix host/restart_unit is not runnable: no value for {service}',
    );
    expect(calls).toEqual([]);
  });
});
