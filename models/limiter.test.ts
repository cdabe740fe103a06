import { describe, expect, it } from 'vitest';
import { createLimiter } from './limiter.js';

describe('createLimiter', () => {
  it('keeps at most `limit` tasks in flight, in order', async () => {
    const limiter = createLimiter(2);
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      peak = Math.max(peak, limiter.active());
      await new Promise((r) => setTimeout(r, 5));
      order.push(i);
    };
    await Promise.all([0, 1, 2, 3, 4].map((i) => limiter.run(task(i))));
    expect(peak).toBe(2);
    expect(order).toHaveLength(5);
    expect(limiter.active()).toBe(0);
  });

  it('drops a waiter whose signal aborts', async () => {
    const limiter = createLimiter(1);
    let release!: () => void;
    const first = limiter.run(() => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    const second = limiter.run(async () => 'ran', controller.signal);
    controller.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    release();
    await first;
    expect(limiter.active()).toBe(0);
  });
});
