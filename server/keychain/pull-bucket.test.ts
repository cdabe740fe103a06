import { describe, expect, it } from 'vitest';
import { createPullBucket, PULL_BURST, PULL_EVERY_MS } from './pull-bucket.js';

describe('the pull bucket of each member', () => {
  it('lets a few pulls through at once, then one every 5 s, saying how long to wait', () => {
    let t = 0;
    const bucket = createPullBucket(() => t);
    for (let i = 0; i < PULL_BURST; i++) expect(bucket.take('A')).toBeNull();
    expect(bucket.take('A')).toBe(5);
    t += 2_000;
    expect(bucket.take('A')).toBe(3);
    t += PULL_EVERY_MS;
    expect(bucket.take('A')).toBeNull();
    expect(bucket.take('A')).not.toBeNull();
  });

  it('keeps one member from spending another’s tokens', () => {
    const bucket = createPullBucket(() => 0);
    for (let i = 0; i < PULL_BURST; i++) bucket.take('A');
    expect(bucket.take('A')).not.toBeNull();
    expect(bucket.take('B')).toBeNull();
  });

  it('never refuses a member pulling every 30 s', () => {
    let t = 0;
    const bucket = createPullBucket(() => t);
    for (let i = 0; i < 100; i++, t += 30_000) expect(bucket.take('A')).toBeNull();
  });
});
