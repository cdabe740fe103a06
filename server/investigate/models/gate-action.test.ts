// System 1's "is this action safe?" over a real ledger with a fake model: a "no" vetoes with
// System 1's reason, a "yes" lets the action go on, an error lets it go on unverified, and the
// prompt carries the fix and its filled call, never a reading.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../../models/index.js';
import type { FixPlan } from '../fix-plan.js';
import { DIAGNOSIS, planOf } from '../../testing/investigate/fixtures/nginx-down.js';
import { gateAction } from './gate-action.js';
import { fakeModels, openModelsBench, type ModelsBench } from '../../testing/investigate/models.js';
import { ledgerRows } from '../../testing/ledger-rows.js';

const EPISODE = 'ep-20261122T100000Z-0a1b2c';
// A reading among the vars, to show it stays out of the prompt.
const PLAN: FixPlan = {
  ...planOf(EPISODE),
  vars: { service: 'nginx', 'host.services.state': 'stopped' },
};

let bench: ModelsBench;
beforeEach(() => {
  bench = openModelsBench('gate-action-');
});
afterEach(() => {
  bench.close();
});

const gates = () =>
  ledgerRows(bench.db)
    .filter((r) => r.type === 'decision.s1')
    .map((r) => ({ data: JSON.parse(r.data) as Record<string, unknown>, reason: r.reason }));

describe('the action gate', () => {
  it('vetoes on a "no", with System 1\'s reason, and records it', async () => {
    const { models, asked } = fakeModels({ safe: false, why: 'restarts the wrong unit' });
    const out = await gateAction({ models, ...bench }, EPISODE, PLAN, DIAGNOSIS);
    expect(out).toEqual({ vetoed: true, why: 'System 1 vetoed: restarts the wrong unit' });
    expect(asked[0]).toMatchObject({ purpose: 's1.action_safe', max_tokens: 200 });
    expect(JSON.parse(asked[0]?.user ?? '{}')).toEqual({
      cause: 'nginx is down',
      service: 'nginx',
      fix: { id: 'restart_unit', title: 'Restart the unit', risk: 'low', kind: 'fix' },
      action: { op: 'restart', args: { unit: 'nginx' } },
    });
    // Readings stay out of the prompt: neither a finding nor a value read.
    expect(asked[0]?.user).not.toContain('stopped');
    expect(gates()).toEqual([
      {
        data: {
          episode_id: EPISODE,
          gate: 'action_safe',
          fix: 'restart_unit',
          safe: false,
          why: 'restarts the wrong unit',
          verified: true,
        },
        reason: 'System 1 vetoed: restarts the wrong unit',
      },
    ]);
  });

  it('lets the action go on when System 1 says yes', async () => {
    const { models } = fakeModels({ safe: true, why: 'restarts the stopped unit' });
    const out = await gateAction({ models, ...bench }, EPISODE, PLAN, DIAGNOSIS);
    expect(out.vetoed).toBe(false);
    expect(gates()[0]?.data).toMatchObject({ safe: true, verified: true });
  });

  it('lets the action go on, unverified, when System 1 does not answer', async () => {
    const { models } = fakeModels(new ModelError('ceiling_spent', 'spent', { purpose: 'x' }));
    const out = await gateAction({ models, ...bench }, EPISODE, PLAN, DIAGNOSIS);
    expect(out.vetoed).toBe(false);
    expect(gates()).toEqual([
      {
        data: {
          episode_id: EPISODE,
          gate: 'action_safe',
          fix: 'restart_unit',
          safe: null,
          verified: false,
          error_kind: 'ceiling_spent',
        },
        reason: 'System 1 did not answer: the gate is unverified',
      },
    ]);
  });

  it('asks nothing and records nothing without System 1', async () => {
    const { models, asked } = fakeModels({ safe: false, why: 'x' }, false);
    const out = await gateAction({ models, ...bench }, EPISODE, PLAN, DIAGNOSIS);
    expect(out.vetoed).toBe(false);
    expect(asked).toEqual([]);
    expect(gates()).toEqual([]);
  });
});
