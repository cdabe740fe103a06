// The covered set (licence.md §3.8): pinned services always, then the earliest first seen up to
// the licence's services; null is unlimited, and pins past a smaller limit stay covered.
import { describe, expect, it } from 'vitest';
import { coverageOf, windowStart } from './coverage.js';

const seen = (...names: string[]) => names.map((service, i) => ({ service, first_seq: i + 1 }));

describe('coverageOf', () => {
  it('covers the earliest first seen up to the limit', () => {
    const c = coverageOf([], seen('a', 'b', 'c'), 2);
    expect([...c.covered]).toEqual(['a', 'b']);
    expect(c.uncovered).toEqual(['c']);
    expect(c.counted).toEqual(['a', 'b', 'c']);
  });

  it('covers pins first, counted once, and the rest by first seen', () => {
    const c = coverageOf(['c', 'z'], seen('a', 'b', 'c'), 3);
    expect([...c.covered].sort()).toEqual(['a', 'c', 'z']);
    expect(c.uncovered).toEqual(['b']);
    expect(c.counted).toEqual(['c', 'z', 'a', 'b']);
  });

  it('keeps every pin covered when a smaller limit leaves no room', () => {
    const c = coverageOf(['x', 'y'], seen('a'), 1);
    expect([...c.covered].sort()).toEqual(['x', 'y']);
    expect(c.uncovered).toEqual(['a']);
  });

  it('covers everything when unlimited', () => {
    const c = coverageOf([], seen('a', 'b', 'c'), null);
    expect(c.uncovered).toEqual([]);
    expect(c.covered.size).toBe(3);
  });

  it('counts the last 30 days, today included', () => {
    expect(windowStart(Date.parse('2026-11-30T23:59:59Z'))).toBe('2026-11-01');
  });
});
