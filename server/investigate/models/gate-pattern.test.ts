// System 1's "is this the same pattern?" over a real ledger with a fake model: a "no" removes
// the lead's recurrence mark and leaves its confidence, an error keeps the mark unverified, a
// lead with no recurrence is not asked about, and the earlier episode's close is in the prompt.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../../models/index.js';
import { PROVEN } from '../../testing/investigate/fixtures/nginx-down.js';
import type { Diagnosis } from '../orchestrator.js';
import type { Hypothesis } from '../types.js';
import { gatePattern } from './gate-pattern.js';
import { fakeModels, openModelsBench, type ModelsBench } from '../../testing/investigate/models.js';
import { ledgerRows } from '../../testing/ledger-rows.js';

const EPISODE = 'ep-20261122T100000Z-0a1b2c';
const EARLIER = 'ep-20261120T080000Z-ffee01';
const LEAD: Hypothesis = { ...PROVEN, recurrence_of: EARLIER };
const DIAGNOSIS: Diagnosis = { packs: ['host'], findings: [], hypotheses: [LEAD] };
const EARLIER_ROW = {
  hypotheses: JSON.stringify([{ ...LEAD, proving: ['host.disk.full'], recurrence_of: null }]),
  result: JSON.stringify({ decision: 'act', action: 'verified', fix: 'restart_unit' }),
};

let bench: ModelsBench;
beforeEach(() => {
  bench = openModelsBench('gate-pattern-');
});
afterEach(() => {
  bench.close();
});

const gates = () =>
  ledgerRows(bench.db)
    .filter((r) => r.type === 'decision.s1')
    .map((r) => JSON.parse(r.data) as Record<string, unknown>);

describe('the pattern gate', () => {
  it('removes the recurrence mark on a "no", and never the confidence', async () => {
    const { models, asked } = fakeModels({ same: false, why: 'the disk was full then' });
    const row = (id: string) => (id === EARLIER ? EARLIER_ROW : null);
    const out = await gatePattern({ models, ...bench, row }, EPISODE, DIAGNOSIS);
    expect(out.hypotheses[0]).toEqual({ ...LEAD, recurrence_of: null });
    expect(asked[0]).toMatchObject({ purpose: 's1.same_pattern', max_tokens: 200 });
    expect(JSON.parse(asked[0]?.user ?? '{}')).toEqual({
      cause: 'nginx is down',
      service: 'nginx',
      proving: ['host.services.unit_down'],
      earlier: {
        episode_id: EARLIER,
        cause: 'nginx is down',
        proving: ['host.disk.full'],
        fix: 'restart_unit',
        action: 'verified',
      },
    });
    expect(gates()).toEqual([
      {
        episode_id: EPISODE,
        gate: 'same_pattern',
        cause: 'service_down',
        recurrence_of: EARLIER,
        same: false,
        why: 'the disk was full then',
        verified: true,
        removed: true,
      },
    ]);
  });

  it('keeps the mark on a "yes"; without the earlier row it asks with the id alone', async () => {
    const { models, asked } = fakeModels({ same: true, why: 'the unit stopped again' });
    const out = await gatePattern({ models, ...bench }, EPISODE, DIAGNOSIS);
    expect(out).toBe(DIAGNOSIS);
    expect(JSON.parse(asked[0]?.user ?? '{}')).toMatchObject({ earlier: { episode_id: EARLIER } });
    expect(gates()[0]).toMatchObject({ same: true, removed: false, verified: true });
  });

  it('keeps the mark, unverified, when System 1 does not answer', async () => {
    const { models } = fakeModels(new ModelError('timeout', 'slow', { purpose: 'x' }));
    const out = await gatePattern({ models, ...bench }, EPISODE, DIAGNOSIS);
    expect(out.hypotheses[0]?.recurrence_of).toBe(EARLIER);
    expect(gates()[0]).toMatchObject({
      gate: 'same_pattern',
      same: null,
      verified: false,
      removed: false,
      error_kind: 'timeout',
    });
  });

  it('asks nothing when the lead names no recurrence', async () => {
    const { models, asked } = fakeModels({ same: false, why: 'x' });
    const plain = { ...DIAGNOSIS, hypotheses: [{ ...LEAD, recurrence_of: null }] };
    expect(await gatePattern({ models, ...bench }, EPISODE, plain)).toBe(plain);
    expect(asked).toEqual([]);
    expect(gates()).toEqual([]);
  });
});
