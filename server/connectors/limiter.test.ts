import { describe, expect, it } from 'vitest';
import { createLimiter, QueueFullError } from './limiter.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('the limiter', () => {
  it('never runs more than its size at once, under 50 concurrent calls', async () => {
    const limiter = createLimiter(4);
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        limiter.run(async () => {
          running += 1;
          peak = Math.max(peak, running);
          expect(limiter.active()).toBeLessThanOrEqual(4);
          await tick();
          running -= 1;
          return i;
        }),
      ),
    );
    expect(peak).toBe(4);
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(limiter.active()).toBe(0);
    expect(limiter.queued()).toBe(0);
  });

  it('starts waiting calls in the order they came (FIFO)', async () => {
    const limiter = createLimiter(1);
    const started: number[] = [];
    let release!: () => void;
    const first = limiter.run(
      () =>
        new Promise<void>((r) => {
          started.push(0);
          release = r;
        }),
    );
    const rest = [1, 2, 3, 4, 5].map((i) =>
      limiter.run(async () => {
        started.push(i);
        await tick();
      }),
    );
    await tick();
    expect(started).toEqual([0]);
    expect(limiter.queued()).toBe(5);
    release();
    await Promise.all([first, ...rest]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('fails a call at once when the queue is full, and frees the slot of a failed call', async () => {
    const limiter = createLimiter(1, 2);
    let release!: () => void;
    const held = limiter.run(() => new Promise<void>((r) => (release = r)));
    const a = limiter.run(async () => 'a');
    const b = limiter.run(async () => 'b');
    await expect(limiter.run(async () => 'c')).rejects.toBeInstanceOf(QueueFullError);
    await expect(limiter.run(async () => 'c')).rejects.toThrow(/2 calls are already waiting/);
    release();
    await held;
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'after')).toBe('after');
    await limiter.idle();
    expect(limiter.active()).toBe(0);
  });
});
