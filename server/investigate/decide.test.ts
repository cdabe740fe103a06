// The decision table, row by row: each row decides when every row above it does not hold,
// and each row's test also shows the row below it taking over when its condition is lifted.
import { describe, expect, it } from 'vitest';
import { ACTIONS, DECISIONS, OUTCOMES, RESULTS } from '../episodes/index.js';
import {
  afterAction,
  decide,
  decidingRow,
  DECISION_TABLE,
  withoutAction,
  type ActionResult,
} from './decide.js';
import type { Confidence, DecideInput, FixChoice, Hypothesis } from './types.js';

const hyp = (
  cause: string,
  confidence: Confidence,
  over: Partial<Hypothesis> = {},
): Hypothesis => ({
  cause,
  title: `${cause} on app`,
  service: 'app',
  confidence,
  pack: 'host',
  proving: [],
  supporting: [],
  refuting: [],
  fixes: ['restart_unit'],
  ...over,
});

const FIX: FixChoice = {
  pack: 'host',
  id: 'restart_unit',
  title: 'Restart app',
  risk: 'low',
  kind: 'fix',
  allowed: true,
  safe: true,
  runnable: true,
};

/** Everything in place for a fix that runs at once on L2. */
const base: DecideInput = {
  hypotheses: [hyp('service_down', 'proven'), hyp('disk_full', 'cleared')],
  alertEnded: false,
  autonomy: 'L2',
  fixMode: 'advise',
  halted: false,
  fix: FIX,
  changeWindow: null,
  approvalRoute: true,
};
const withFix = (over: Partial<FixChoice>): DecideInput => ({ ...base, fix: { ...FIX, ...over } });

describe('decide: one row at a time', () => {
  it('settled: the alert ended and nothing is proven or linked', () => {
    const input = { ...base, alertEnded: true, hypotheses: [hyp('service_down', 'suspected')] };
    expect(decide(input)).toEqual({
      decision: 'settled',
      why: 'the alert ended by itself before a cause was proven',
      next: 'none',
    });
    // A proven cause is decided on even when the alert ended meanwhile.
    expect(decide({ ...base, alertEnded: true }).decision).toBe('act');
    expect(decide({ ...input, alertEnded: false }).decision).toBe('abstain');
  });

  it('downstream: the leading hypothesis is linked (a cause proven on a dependency)', () => {
    const linked = hyp('service_down', 'linked', {
      service: 'postgresql',
      title: 'postgresql is down',
    });
    const out = decide({ ...base, hypotheses: [linked, hyp('disk_full', 'suspected')] });
    expect(out).toEqual({
      decision: 'downstream',
      why: 'the effect of postgresql is down on postgresql, which this service depends on',
      next: 'none',
    });
    // A proven cause of its own ranked first leads instead.
    expect(decide({ ...base, hypotheses: [hyp('service_down', 'proven'), linked] }).decision).toBe(
      'act',
    );
    // Linked wins over "the alert ended": the episode is explained, not settled.
    expect(decide({ ...base, alertEnded: true, hypotheses: [linked] }).decision).toBe('downstream');
  });

  it('cleared: nothing proven, at least one cause cleared, none suspected or disputed', () => {
    const out = decide({
      ...base,
      hypotheses: [hyp('service_down', 'cleared'), hyp('disk_full', 'unproven')],
    });
    expect(out).toEqual({
      decision: 'cleared',
      why: 'every cause the checks could test was ruled out (service_down)',
      next: 'none',
    });
  });

  it('never cleared for a service the estate does not know: its own checks could not read', () => {
    // A deploy ruled out by the repository says nothing of a service no host is known to run.
    const out = decide({
      ...base,
      hypotheses: [hyp('bad_deploy', 'cleared'), hyp('service_down', 'unproven')],
      hint: 'run discovery',
    });
    expect(out).toEqual({
      decision: 'abstain',
      why: 'no cause is proven; too little evidence to act; run discovery',
      next: 'none',
    });
  });

  it('abstain: nothing proven and something still open (or nothing read) — never a guess', () => {
    for (const open of ['suspected', 'disputed'] as const) {
      const out = decide({
        ...base,
        hypotheses: [hyp('service_down', 'cleared'), hyp('disk_full', open)],
      });
      expect(out).toEqual({
        decision: 'abstain',
        why: `no cause is proven (disk_full ${open}); too little evidence to act`,
        next: 'none',
      });
    }
    expect(decide({ ...base, hypotheses: [] })).toEqual({
      decision: 'abstain',
      why: 'no cause is proven; too little evidence to act',
      next: 'none',
    });
    expect(decide({ ...base, hypotheses: [hyp('service_down', 'unproven')] }).decision).toBe(
      'abstain',
    );
    // Before discovery: the hint says what would let the checks read.
    expect(
      decide({ ...base, hypotheses: [hyp('service_down', 'suspected')], hint: 'run discovery' }),
    ).toEqual({
      decision: 'abstain',
      why: 'no cause is proven (service_down suspected); too little evidence to act; run discovery',
      next: 'none',
    });
  });

  it('ask_human: a proven cause without a fix', () => {
    expect(decide({ ...base, fix: null })).toEqual({
      decision: 'ask_human',
      why: 'service_down on app is proven, and no fix for it exists: a person must act',
      next: 'none',
    });
  });

  it('ask_human: the fix would not change what explains the symptom (it does not fit)', () => {
    const unfit = 'it needs host-disk.disk.cache_holds_space, which the checks did not find';
    expect(decide({ ...withFix({ unfit }), halted: true })).toEqual({
      decision: 'ask_human',
      why: `service_down on app is proven, but Restart app (host/restart_unit, low risk) would not help: ${unfit}; a person acts`,
      next: 'none',
    });
    expect(decide(withFix({ unfit: null })).decision).toBe('act');
  });

  it('ask_human: autonomy off', () => {
    expect(decide({ ...base, autonomy: 'off', halted: true })).toEqual({
      decision: 'ask_human',
      why: 'service_down on app is proven; autonomy is off for this service, so a person acts',
      next: 'none',
    });
  });

  it('blocked: halted', () => {
    expect(decide({ ...base, halted: true, fix: { ...FIX, allowed: false } })).toEqual({
      decision: 'blocked',
      why: 'actions are halted: Restart app (host/restart_unit, low risk) does not run',
      next: 'none',
    });
  });

  it('blocked: the policy does not allow the fix', () => {
    expect(decide(withFix({ allowed: false, runnable: false }))).toEqual({
      decision: 'blocked',
      why: 'the policy does not allow Restart app (host/restart_unit, low risk) on this service',
      next: 'none',
    });
  });

  it('ask_human: the fix is not runnable (a template value is missing)', () => {
    const out = decide({
      ...withFix({ runnable: false }),
      changeWindow: { name: 'freeze', until: '2026-11-23T00:00:00.000Z' },
    });
    expect(out.decision).toBe('ask_human');
    expect(out.why).toMatch(/cannot be filled in from what was read/);
    expect(out.next).toBe('none');
  });

  it('change_blocked: a change window covers the service', () => {
    const out = decide({
      ...base,
      autonomy: 'shadow',
      changeWindow: { name: 'black-friday', until: '2026-11-30T00:00:00.000Z' },
    });
    expect(out).toEqual({
      decision: 'change_blocked',
      why: 'change window black-friday forbids actions on this service until 2026-11-30T00:00:00.000Z',
      next: 'none',
    });
  });

  it('shadow: shadow autonomy records what would run', () => {
    expect(decide({ ...withFix({ kind: 'restore' }), autonomy: 'shadow' })).toEqual({
      decision: 'shadow',
      why: 'shadow autonomy: Restart app (host/restart_unit, low risk) is recorded as what would run, nothing runs',
      next: 'record',
    });
  });

  it('ask_human: a restore fix in fix mode advise is advice, not a request', () => {
    const out = decide({ ...withFix({ kind: 'restore' }), approvalRoute: false });
    expect(out.decision).toBe('ask_human');
    expect(out.why).toMatch(/fix mode advise names it as advice for a person, it is not requested/);
    expect(out.next).toBe('none');
  });

  it('act: L2 and the policy lists the fix as safe — runs without asking', () => {
    expect(decide({ ...base, approvalRoute: false })).toEqual({
      decision: 'act',
      why: 'L2 autonomy and the policy lists Restart app (host/restart_unit, low risk) as safe: it runs without asking',
      next: 'act',
    });
  });

  it('no_approval_route: L1 (or L2 not safe) with nobody to ask', () => {
    for (const input of [
      { ...base, autonomy: 'L1' as const, approvalRoute: false },
      { ...withFix({ safe: false }), approvalRoute: false },
    ]) {
      const out = decide(input);
      expect(out.decision).toBe('no_approval_route');
      expect(out.why).toMatch(/needs an approval, and no approver is signed in/);
      expect(out.next).toBe('none');
    }
  });

  it('act or restore with next ask: L1, L2 not safe, and every restore in fix mode draft', () => {
    expect(decide({ ...base, autonomy: 'L1' })).toEqual({
      decision: 'act',
      why: 'L1 autonomy: Restart app (host/restart_unit, low risk) is requested for approval',
      next: 'ask',
    });
    expect(decide(withFix({ safe: false }))).toMatchObject({
      decision: 'act',
      why: expect.stringMatching(
        /^L2 autonomy, but the policy does not list the fix as safe/,
      ) as string,
      next: 'ask',
    });
    // A restore is never run without asking, even when listed safe on L2.
    for (const autonomy of ['L1', 'L2'] as const)
      expect(decide({ ...withFix({ kind: 'restore' }), fixMode: 'draft', autonomy })).toEqual({
        decision: 'restore',
        why: 'Restart app (host/restart_unit, low risk) rolls back a change: drafted as a request for two approvers',
        next: 'ask',
      });
  });

  it('has a test above for every row, in this order', () => {
    expect(DECISION_TABLE.map((r) => r.name)).toEqual([
      'settled',
      'downstream',
      'cleared',
      'abstain',
      'no fix',
      'fix does not fit',
      'autonomy off',
      'halted',
      'not allowed',
      'not runnable',
      'change window',
      'shadow',
      'restore advised',
      'L2 safe',
      'no approval route',
      'ask',
    ]);
    expect(decidingRow(base)).toBe('L2 safe');
    expect(decidingRow({ ...base, autonomy: 'L1' })).toBe('ask');
  });

  it('only ever answers values of the decision enumeration', () => {
    const seen = new Set<string>();
    const levels = ['off', 'shadow', 'L1', 'L2'] as const;
    for (const autonomy of levels)
      for (const halted of [false, true])
        for (const kind of ['fix', 'restore'] as const)
          for (const safe of [false, true])
            for (const approvalRoute of [false, true])
              for (const fixMode of ['advise', 'draft'] as const) {
                const out = decide({
                  ...withFix({ kind, safe }),
                  autonomy,
                  halted,
                  approvalRoute,
                  fixMode,
                });
                seen.add(out.decision);
                expect(DECISIONS).toContain(out.decision);
                expect(out.why.length).toBeGreaterThan(10);
                // Only act, restore and shadow go on to do anything.
                if (out.next !== 'none')
                  expect(['act', 'restore', 'shadow']).toContain(out.decision);
              }
    expect([...seen].sort()).toEqual(
      ['act', 'ask_human', 'blocked', 'no_approval_route', 'restore', 'shadow'].sort(),
    );
  });
});

describe('afterAction: how an episode closes once its action is over', () => {
  const cases: [string, ActionResult, object][] = [
    ['act', 'verified', { decision: 'act', outcome: 'mitigated', result: 'resolved', action: 'verified' }],
    ['restore', 'verified', { decision: 'restore', outcome: 'mitigated', result: 'restored', action: 'verified' }],
    ['act', 'taken_back', { decision: 'act', outcome: 'action_failed', result: 'handed_over', action: 'taken_back' }],
    ['act', 'not_verified', { decision: 'act', outcome: 'action_failed', result: 'handed_over', action: 'not_verified' }],
    ['act', 'dry_run_failed', { decision: 'dry_run_failed', outcome: 'escalated', result: 'handed_over', action: '' }],
    ['restore', 'denied', { decision: 'denied', outcome: 'rejected', result: 'handed_over', action: '' }],
    ['act', 'refused_halt', { decision: 'blocked', outcome: 'escalated', result: 'handed_over', action: '' }],
    ['act', 'refused_policy', { decision: 'blocked', outcome: 'escalated', result: 'handed_over', action: '' }],
    ['act', 'refused_change', { decision: 'change_blocked', outcome: 'escalated', result: 'handed_over', action: '' }],
  ]; // prettier-ignore
  it.each(cases)('%s then %s', (decision, result, closing) => {
    const c = afterAction(decision as 'act', result);
    expect(c).toEqual(closing);
    expect(DECISIONS).toContain(c.decision);
    expect(OUTCOMES).toContain(c.outcome);
    expect(RESULTS).toContain(c.result);
    expect(ACTIONS).toContain(c.action);
  });

  it('closes decisions that run nothing within the enumerations', () => {
    expect(withoutAction('settled')).toEqual({ decision: 'settled', outcome: 'cleared', result: 'resolved', action: '' }); // prettier-ignore
    expect(withoutAction('cleared')).toMatchObject({ outcome: 'cleared', result: 'cleared' });
    expect(withoutAction('downstream')).toMatchObject({ outcome: 'explained', result: 'linked' });
    expect(withoutAction('shadow')).toMatchObject({ outcome: 'shadow', result: 'shadow' });
    expect(withoutAction('abstain')).toMatchObject({ outcome: 'unresolved', result: 'other' });
    expect(withoutAction('ask_human')).toMatchObject({ outcome: 'escalated', result: 'handed_over' }); // prettier-ignore
    for (const d of DECISIONS) {
      const c = withoutAction(d);
      expect(OUTCOMES).toContain(c.outcome);
      expect(RESULTS).toContain(c.result);
      expect(c.action).toBe('');
    }
  });
});
