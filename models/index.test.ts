import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModelClient } from './index.js';
import { clientOptions, completion, fakeClock, request, stubClient } from './testing.js';
import type { ModelAnswer, ModelRequest } from './types.js';

describe('createModelClient', () => {
  it('composes cassette → ceiling → endpoint', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'models-'));
    let calls = 0;
    const clock = fakeClock('2026-03-01T10:00:00Z');
    const client = createModelClient({
      ...clientOptions,
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
      ...clientOptions,
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
    expect(() => createModelClient({ ...clientOptions, url: null })).toThrow(
      /endpoint URL is required/,
    );
    expect(() => createModelClient({ ...clientOptions, cassetteDir: '/tmp/x' })).toThrow(/both/);
  });

  it('puts an injected transport behind the cassette, ceiling, timeout and limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'models-'));
    const local = stubClient({ enough: 'yes' }, 12);
    const client = createModelClient({
      ...clientOptions,
      url: null,
      transport: local,
      dailyTokens: 10,
      cassetteDir: dir,
      replay: 'auto',
      clock: fakeClock('2026-03-01T10:00:00Z'),
    });
    expect(await client.call(request)).toMatchObject({ value: { enough: 'yes' }, cached: false });
    expect(client.state()).toEqual({ day: '2026-03-01', used: 12, limit: 10 });
    expect((await client.call(request)).cached).toBe(true);
    await expect(client.call({ ...request, user: 'other' })).rejects.toMatchObject({
      kind: 'ceiling_spent',
    });
    expect(local.calls).toBe(1);

    // One slot, one second: the second call waits behind the first and times out.
    let release: (() => void) | undefined;
    const slow = {
      call: (_r: ModelRequest, signal?: AbortSignal) =>
        new Promise<ModelAnswer>((resolve, reject) => {
          release = () => {
            resolve({
              value: { enough: 'no' },
              usage: { prompt_tokens: 1, completion_tokens: 1 },
              model: 'slow',
              seconds: 0,
              cached: false,
            });
          };
          signal?.addEventListener('abort', () => {
            reject(signal.reason as Error);
          });
        }),
    };
    const limited = createModelClient({
      ...clientOptions,
      url: null,
      transport: slow,
      timeoutS: 1,
    });
    const [first, second] = await Promise.allSettled([
      limited.call(request),
      limited.call(request),
    ]);
    expect(first).toMatchObject({ status: 'rejected', reason: { kind: 'timeout' } });
    expect(second).toMatchObject({ status: 'rejected', reason: { kind: 'timeout' } });
    release?.();
  });
});
