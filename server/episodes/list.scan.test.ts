// The arrays a list reader keeps between requests: each request gets them zeroed (unless it
// writes before it reads), the same memory while it fits, and a larger one when it does not.
import { describe, expect, it } from 'vitest';
import { Reused, Tally, median } from './list.scan.js';

describe('Reused', () => {
  it('hands out the same memory zeroed, and grows past its size', () => {
    const ints = new Reused((n) => new Int32Array(n));
    const a = ints.take(4);
    a.set([1, 2, 3, 4]);
    const b = ints.take(3);
    expect(b.buffer).toBe(a.buffer);
    expect([...b]).toEqual([0, 0, 0]);
    expect(a[3]).toBe(4); // past the view taken: left as it was, never read
    const c = ints.take(10);
    expect(c.buffer).not.toBe(a.buffer);
    expect([...c]).toEqual(new Array<number>(10).fill(0));
  });

  it('leaves the values as they were when asked not to zero them', () => {
    const bytes = new Reused((n) => new Uint8Array(n));
    bytes.take(2).set([7, 8]);
    expect([...bytes.take(2, false)]).toEqual([7, 8]);
  });

  it('lets a Tally count in a reused array', () => {
    const counts = new Reused((n) => new Int32Array(n));
    const first = new Tally(counts.take(1 << 16));
    [5, 1, 3].forEach((v) => first.add(v));
    expect(median(first)).toBe(3);
    const second = new Tally(counts.take(1 << 16));
    [9, 9].forEach((v) => second.add(v));
    expect(median(second)).toBe(9);
  });
});
