// The day median is a selection in place; checked against a sort of the same values.
import { describe, expect, it } from 'vitest';
import { medianIn } from './list.histogram.js';

function sorted(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor((s.length - 1) / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m]! + s[m + 1]!) / 2;
}

describe('medianIn', () => {
  it('is null for no values, and the middle or the mean of the middle two', () => {
    expect(medianIn(new Int32Array([]))).toBeNull();
    expect(medianIn(Int32Array.from([7]))).toBe(7);
    expect(medianIn(Int32Array.from([1000, 240]))).toBe(620);
    expect(medianIn(Int32Array.from([3, 3, 3, 3]))).toBe(3);
  });

  it('agrees with a sort over many shapes: random, repeated, sorted, reversed, negative', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 500; round++) {
      const n = rand(40);
      const spread = [1, 3, 100, 100_000][round % 4]!;
      let values = Array.from({ length: n }, () => rand(spread) - (round % 7 === 0 ? 50 : 0));
      if (round % 5 === 1) values = values.sort((a, b) => a - b);
      if (round % 5 === 2) values = values.sort((a, b) => b - a);
      expect(medianIn(Int32Array.from(values)), values.join(',')).toBe(sorted(values));
    }
  });
});
