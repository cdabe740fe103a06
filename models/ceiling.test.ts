import { describe, expect, it } from 'vitest';
import { withCeiling } from './ceiling.js';
import { fakeClock, request, stubClient } from './testing.js';

describe('withCeiling', () => {
  it('refuses once the day is spent, until 00:00 UTC', async () => {
    const clock = fakeClock('2026-01-05T23:00:00Z');
    const inner = stubClient({ enough: 'yes' }, 15);
    const client = withCeiling(inner, { dailyTokens: 20, clock });
    await client.call(request);
    await client.call(request); // 30 ≥ 20: the next one is refused
    await expect(client.call(request)).rejects.toMatchObject({
      kind: 'ceiling_spent',
      until: '2026-01-06T00:00:00.000Z',
    });
    expect(inner.calls).toBe(2);
    clock.set('2026-01-06T00:00:01Z');
    await client.call(request);
    expect(client.state()).toEqual({ day: '2026-01-06', used: 15, limit: 20 });
  });

  it('has no ceiling at 0 and does not count cached answers', async () => {
    const clock = fakeClock('2026-01-05T12:00:00Z');
    const client = withCeiling(
      { call: async (r) => ({ ...(await stubClient(1).call(r)), cached: true }) },
      { dailyTokens: 0, clock },
    );
    for (let i = 0; i < 5; i++) await client.call(request);
    expect(client.state().used).toBe(0);
  });
});
