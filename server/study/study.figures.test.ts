// The study's arithmetic, against values worked out by hand.
import { describe, expect, it } from 'vitest';
import {
  align,
  baselineOf,
  correlate,
  laggedCorrelation,
  pearson,
  quantile,
  RELATION_MIN_STRENGTH,
} from './study.figures.js';

describe('baseline', () => {
  it('1..5: min 1, max 5, mean 3, p5 1.2, p50 3, p95 4.8 (linear between neighbours)', () => {
    expect(baselineOf([5, 3, 1, 4, 2])).toEqual({
      n: 5,
      min: 1,
      max: 5,
      mean: 3,
      p5: 1.2,
      p50: 3,
      p95: 4.8,
    });
  });

  it('missing points (NaN) are left out; none at all gives no baseline', () => {
    expect(baselineOf([Number.NaN, 10, 20])).toMatchObject({ n: 2, p50: 15, mean: 15 });
    expect(baselineOf([Number.NaN])).toBeNull();
    expect(baselineOf([])).toBeNull();
  });

  it('quantile of one value is that value', () => {
    expect(quantile([7], 0.95)).toBe(7);
  });
});

describe('pearson', () => {
  it('a straight line up is 1, down is -1', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])?.r).toBeCloseTo(1, 10);
    expect(pearson([1, 2, 3], [3, 2, 1])?.r).toBeCloseTo(-1, 10);
  });

  it('[1,2,3,4] with [1,3,2,4]: cov 4 over sqrt(5 × 5) = 0.8', () => {
    expect(pearson([1, 2, 3, 4], [1, 3, 2, 4])?.r).toBeCloseTo(0.8, 10);
  });

  it('a series that does not vary correlates with nothing; a missing point drops its pair', () => {
    expect(pearson([1, 1, 1, 1], [1, 2, 3, 4])).toBeNull();
    expect(pearson([1, 2, Number.NaN, 3], [2, 4, 100, 6])).toEqual({ r: 1, n: 3 });
  });
});

// a has three spikes; b is a two steps later.
const A = [0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0];
const B = [0, 0, ...A.slice(0, -2)];

describe('lagged correlation', () => {
  it('b repeats a two steps later: a leads by 2 with r 1 over 12 pairs', () => {
    expect(laggedCorrelation(A, B, 6)).toEqual({ lag: 2, r: 1, pairs: 12 });
    expect(laggedCorrelation(B, A, 6)).toEqual({ lag: -2, r: 1, pairs: 12 });
  });

  it('a lag beyond tau is not looked at', () => {
    const found = laggedCorrelation(A, B, 1);
    expect(found?.lag).not.toBe(2);
    expect(Math.abs(found?.r ?? 0)).toBeLessThan(1);
  });

  it('fewer than 8 pairs say nothing', () => {
    expect(laggedCorrelation([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7], 0)).toBeNull();
  });
});

describe('relations', () => {
  it('the leader is depended on: postgresql follows app, so postgresql → app, lag 2', () => {
    const found = correlate(
      [
        { service: 'app', reading: 'cpu', values: A },
        { service: 'postgresql', reading: 'cpu', values: B },
      ],
      6,
    );
    expect(found).toEqual([
      {
        from: 'postgresql',
        to: 'app',
        lag: 2,
        strength: 1,
        score: 1,
        readings: 'app cpu → postgresql cpu',
        method: 'lagged_correlation',
      },
    ]);
  });

  it('moving together (lag 0) has no order: names decide, score 0.8 × |r|', () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const found = correlate(
      [
        { service: 'web', reading: 'cpu', values: x },
        { service: 'db', reading: 'memory', values: x.map((v) => 2 * v) },
      ],
      0,
    );
    expect(found).toEqual([
      {
        from: 'db',
        to: 'web',
        lag: 0,
        strength: 1,
        score: 0.8,
        readings: 'db memory with web cpu',
        method: 'lagged_correlation',
      },
    ]);
  });

  it('readings of one service, weak correlations and flat series give none', () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const noise = [3, 9, 1, 7, 2, 8, 4, 10, 5, 6];
    expect(Math.abs(pearson(x, noise)?.r ?? 1)).toBeLessThan(RELATION_MIN_STRENGTH);
    expect(
      correlate(
        [
          { service: 'app', reading: 'cpu', values: x },
          { service: 'app', reading: 'memory', values: x },
          { service: 'db', reading: 'up', values: x.map(() => 1) },
          { service: 'web', reading: 'cpu', values: noise },
        ],
        0,
      ),
    ).toEqual([]);
  });
});

describe('align', () => {
  it('puts each point on its step; a step without one is NaN', () => {
    expect(
      align(
        [
          [100, 1],
          [110, 2],
          [130, 4],
        ],
        100,
        130,
        10,
      ),
    ).toEqual([1, 2, Number.NaN, 4]);
  });
});
