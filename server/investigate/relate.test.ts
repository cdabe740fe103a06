import { describe, expect, it } from 'vitest';
import { relate, type RelateInput } from './relate.js';
import type { Hypothesis } from './types.js';

const h = (cause: string, confidence: Hypothesis['confidence'], service = 'api'): Hypothesis => ({
  cause,
  title: cause,
  service,
  confidence,
  pack: 'host',
  proving: [],
  supporting: [],
  refuting: [],
  fixes: [],
});

const estate: RelateInput['estate'] = {
  services: [
    { name: 'api', hosts: ['10.0.0.1'] },
    { name: 'worker', hosts: ['10.0.0.1'] },
    { name: 'db', hosts: ['10.0.0.9'] },
    { name: 'web', hosts: ['10.0.0.5'] },
  ],
  links: [
    { from: 'web', to: 'api' },
    { from: 'api', to: 'db' },
  ],
};
const other = (
  episode_id: string,
  service: string,
  lead: RelateInput['others'][number]['lead'],
) => ({
  episode_id,
  service,
  t_open: `2026-11-22T10:00:0${episode_id.slice(-1)}.000Z`,
  lead,
});

describe('relate', () => {
  it('same_cause: the same cause already proven on a service sharing a host, the earliest', () => {
    const r = relate({
      episode_id: 'ep-0',
      service: 'api',
      hypotheses: [h('disk_full', 'proven')],
      estate,
      others: [
        other('ep-2', 'worker', { cause: 'disk_full', confidence: 'proven' }),
        other('ep-1', 'db', { cause: 'disk_full', confidence: 'proven' }),
      ],
    });
    expect(r).toMatchObject({ decision: 'same_cause', to: 'ep-2' });
  });

  it('no same_cause without a shared host, another cause, or a cause only suspected there', () => {
    for (const o of [
      other('ep-1', 'db', { cause: 'disk_full', confidence: 'proven' }),
      other('ep-2', 'worker', { cause: 'service_down', confidence: 'proven' }),
      other('ep-3', 'worker', { cause: 'disk_full', confidence: 'suspected' }),
    ])
      expect(
        relate({
          episode_id: 'ep-0',
          service: 'api',
          hypotheses: [h('disk_full', 'proven')],
          estate,
          others: [o],
        }),
      ).toBeNull();
  });

  it('related: nothing proven here, an open episode on a service linked either way', () => {
    const base = { episode_id: 'ep-0', service: 'api', estate };
    expect(
      relate({ ...base, hypotheses: [h('x', 'suspected')], others: [other('ep-1', 'db', null)] }),
    ).toMatchObject({ decision: 'related', to: 'ep-1' });
    expect(relate({ ...base, hypotheses: [], others: [other('ep-1', 'web', null)] })).toMatchObject(
      { decision: 'related', to: 'ep-1' },
    );
    expect(relate({ ...base, hypotheses: [], others: [other('ep-1', 'worker', null)] })).toBeNull();
    // A linked cause is downstream (the decision table's), never related.
    expect(
      relate({
        ...base,
        hypotheses: [h('service_down', 'linked', 'db')],
        others: [other('ep-1', 'db', null)],
      }),
    ).toBeNull();
  });

  it('never relates an episode to itself', () => {
    expect(
      relate({
        episode_id: 'ep-1',
        service: 'api',
        estate,
        hypotheses: [],
        others: [other('ep-1', 'web', null)],
      }),
    ).toBeNull();
  });
});
