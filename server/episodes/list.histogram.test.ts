// The day median is a selection in place; checked against a sort of the same values.
import { describe, expect, it } from 'vitest';
import { histogram, medianIn } from './list.histogram.js';
import { Dictionary, type EpisodeIndex } from './list.index.js';

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

describe('histogram', () => {
  // Five rows over two days: positions 0..4, t_open given, restore on some.
  const dict = (values: string[]) => {
    const d = new Dictionary();
    for (const v of values) d.code(v);
    return d;
  };
  const day = (d: number, h: number) => Date.UTC(2026, 10, d, h);
  const index = {
    dict: {
      kind: dict(['failure']),
      confidence: dict(['proven']),
      outcome: dict(['mitigated']),
      result: dict(['restored', 'handed_over']),
      action: dict(['taken_back']),
    },
    columns: () => ({
      tOpen: Float64Array.from([day(21, 9), day(21, 3), day(20, 8), day(20, 5), day(20, 1)]),
      restore: Int32Array.from([100, 300, -1, 50, 70]),
      handover: Int32Array.from([-1, 40, -1, -1, -1]),
      action: Uint16Array.from([0, 1, 0, 0, 0]),
      facet: {
        kind: Uint32Array.from([1, 0, 0, 0, 0]),
        confidence: Uint32Array.from([0, 0, 1, 0, 0]),
        outcome: Uint32Array.from([1, 1, 0, 0, 0]),
        result: Uint32Array.from([1, 2, 1, 1, 2]),
      },
    }),
  } as unknown as EpisodeIndex;
  const take = () => ({ take: (n: number) => new Int32Array(n) });
  const scratch = { restoreValues: take(), handoverValues: take() };

  it('counts per day, oldest first, whatever order the rows come in', () => {
    const newestFirst = histogram(index, Int32Array.from([0, 1, 2, 3, 4]), scratch);
    expect(newestFirst).toEqual([
      {
        day: '2026-11-20',
        total: 3,
        failures: 0,
        symptoms: 0,
        proven: 1,
        mitigated: 0,
        escalated: 0,
        results: { restored: 2, handed_over: 1 },
        taken_back: 0,
        restore_s: { median: 60, n: 2 },
        handover_s: { median: null, n: 0 },
      },
      {
        day: '2026-11-21',
        total: 2,
        failures: 1,
        symptoms: 0,
        proven: 0,
        mitigated: 2,
        escalated: 0,
        results: { restored: 1 },
        taken_back: 1,
        restore_s: { median: 200, n: 2 },
        handover_s: { median: 40, n: 1 },
      },
    ]);
    expect(histogram(index, Int32Array.from([3, 0, 4, 2, 1]), scratch)).toEqual(newestFirst);
    expect(histogram(index, new Int32Array(0), scratch)).toEqual([]);
  });
});
