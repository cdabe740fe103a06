// The selection against the rest: shares, not counts, decide the order, so a value common
// everywhere does not outrank one that sets the selected days apart.
import { describe, expect, it } from 'vitest';
import { compareWithRest, liftBadge } from './episodes-facets.js';

describe('compareWithRest', () => {
  it('puts the over-represented value first, however small its count', () => {
    // 10 selected of 100: payments is 6 of 10 inside but 54 of 90 outside (the same share);
    // ledgerd is 3 of 10 inside and 3 of 90 outside (nine times the share).
    const order = compareWithRest(
      { payments: 6, ledgerd: 3, search: 1 },
      10,
      { payments: 60, ledgerd: 6, search: 34 },
      100,
    );
    expect(order.map((v) => v.value)).toEqual(['ledgerd', 'payments', 'search']);
    expect(order[0]?.lift).toBeCloseTo(9);
    expect(order[1]?.lift).toBeCloseTo(1);
    expect(order[2]?.lift).toBeCloseTo(0.1 / (33 / 90), 5);
  });

  it('says "only here" for a value the rest does not have, and nothing for a common one', () => {
    const order = compareWithRest(
      { billing: 2, payments: 8 },
      10,
      { billing: 2, payments: 80 },
      90,
    );
    expect(order[0]).toEqual({ value: 'billing', count: 2, lift: Infinity });
    expect(liftBadge(order[0]?.lift ?? 0)).toBe('only here');
    expect(liftBadge(order[1]?.lift ?? 0)).toBeNull();
    expect(liftBadge(2.44)).toBe('×2.4 vs rest');
    // No days selected: nothing to compare with, so no badge (it once read "×NaN vs rest").
    expect(liftBadge(Number.NaN)).toBeNull();
  });

  it('copes with a selection that is the whole scope, and with a value missing from it', () => {
    expect(compareWithRest({ a: 5 }, 5, { a: 5 }, 5)).toEqual([
      { value: 'a', count: 5, lift: Infinity },
    ]);
    // The whole scope's answer lacks the value (capped list): it is counted as all inside.
    expect(compareWithRest({ a: 1, b: 1 }, 2, { a: 3 }, 10)[0]?.value).toBe('b');
  });
});
