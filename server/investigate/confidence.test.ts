import { describe, expect, it } from 'vitest';
import { CONFIDENCE_ORDER, confidenceOf, isLinked } from './confidence.js';

describe('confidence', () => {
  it.each([
    [1, 0, 0, 'proven'],
    [2, 1, 0, 'proven'],
    [1, 0, 1, 'disputed'],
    [0, 1, 1, 'disputed'],
    [0, 2, 0, 'suspected'],
    [0, 0, 1, 'cleared'],
    [0, 0, 0, 'unproven'],
  ] as const)('proving %i, supporting %i, refuting %i → %s', (p, s, r, want) => {
    expect(confidenceOf({ proving: p, supporting: s, refuting: r })).toBe(want);
  });

  it('links a cause proven on a dependency when an alert matches its downstream globs', () => {
    expect(isLinked('proven', ['LabSiteDown'], ['*Down*'])).toBe(true);
    expect(isLinked('proven', ['LabAppErrors', 'X'], ['*Unhealthy*', '*Error*'])).toBe(true);
    expect(isLinked('proven', ['LabCertExpiring'], ['*Down*'])).toBe(false);
    expect(isLinked('suspected', ['LabSiteDown'], ['*Down*'])).toBe(false);
    expect(isLinked('proven', ['LabSiteDown'], [])).toBe(false);
  });

  it('orders best first', () => {
    expect(CONFIDENCE_ORDER).toEqual([
      'proven',
      'linked',
      'suspected',
      'disputed',
      'unproven',
      'cleared',
    ]);
  });
});
