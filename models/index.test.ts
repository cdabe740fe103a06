import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModelClient } from './index.js';
import type { ModelClientOptions } from './index.js';
import { completion, fakeClock, request } from './testing.js';

const base: ModelClientOptions = {
  url: 'http://model.test/v1',
  model: 'tiny',
  key: null,
  extra: null,
  timeoutS: 5,
  concurrency: 1,
  dailyTokens: 0,
  cassetteDir: null,
  replay: null,
};

describe('createModelClient', () => {
  it('composes cassette → ceiling → endpoint', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'models-'));
    let calls = 0;
    const clock = fakeClock('2026-03-01T10:00:00Z');
    const client = createModelClient({
      ...base,
      dailyTokens: 10,
      cassetteDir: dir,
      replay: 'auto',
      clock,
      fetch: async () => {
        calls += 1;
        return new Response(completion({ enough: 'yes' }, 8, 4));
      },
    });
    expect((await client.call(request)).cached).toBe(false);
    expect(client.state().used).toBe(12);
    // Spent (12 ≥ 10): a replayed answer is free and still served, a new call is refused.
    expect((await client.call(request)).cached).toBe(true);
    await expect(client.call({ ...request, user: 'other' })).rejects.toMatchObject({
      kind: 'ceiling_spent',
    });
    expect(calls).toBe(1);
    const replayOnly = createModelClient({
      ...base,
      url: null,
      cassetteDir: dir,
      replay: 'replay',
    });
    expect(await replayOnly.call(request)).toMatchObject({
      value: { enough: 'yes' },
      cached: true,
    });
  });

  it('refuses a half-configured cassette or no endpoint', () => {
    expect(() => createModelClient({ ...base, url: null })).toThrow(/endpoint URL is required/);
    expect(() => createModelClient({ ...base, cassetteDir: '/tmp/x' })).toThrow(/both/);
  });
});
