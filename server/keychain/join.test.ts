// The joining site's retry policy on a fake clock: every 30 s (or the home's Retry-After),
// never past two hours, and never again after a fatal answer.
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { JOIN_DEADLINE_S, JOIN_RETRY_S, runJoin, type Attempt, type JoinState } from './join.js';

function harness(outcomes: (n: number) => Attempt) {
  const clock = createFakeClock('2026-11-28T00:00:00.000Z');
  const waits: number[] = [];
  const states: JoinState[] = [];
  let n = 0;
  const run = runJoin({
    attempt: async () => outcomes(++n),
    clock,
    sleep: async (ms) => {
      waits.push(ms);
      clock.advance(ms);
    },
    onState: (s) => states.push(s),
    stopped: () => false,
  });
  return { run, waits, states, attempts: () => n, clock };
}

describe('runJoin', () => {
  it('tries again every 30 s while the home is away, then enrols', async () => {
    const h = harness((n) =>
      n < 4 ? { kind: 'retry', why: 'connection refused' } : { kind: 'enrolled' },
    );
    expect(await h.run).toEqual({ state: 'enrolled', attempts: 4 });
    expect(h.waits).toEqual([30_000, 30_000, 30_000]);
    expect(h.states[0]).toMatchObject({
      state: 'trying',
      attempts: 1,
      last_error: 'connection refused',
    });
  });

  it("waits for the home's Retry-After when it is longer than 30 s", async () => {
    const h = harness((n) =>
      n === 1 ? { kind: 'retry', why: '429', afterS: 95 } : { kind: 'enrolled' },
    );
    await h.run;
    expect(h.waits).toEqual([95_000]);
  });

  it('stops at once on a fatal answer (a pin mismatch), without waiting', async () => {
    const h = harness(() => ({
      kind: 'fatal',
      why: 'not the home this key pins',
      reason: 'pin_mismatch',
    }));
    expect(await h.run).toEqual({
      state: 'failed',
      attempts: 1,
      last_error: 'not the home this key pins',
    });
    expect(h.waits).toEqual([]);
  });

  it('gives up after two hours of a home that never answers', async () => {
    const h = harness(() => ({ kind: 'retry', why: 'connection refused' }));
    const end = await h.run;
    expect(end).toMatchObject({ state: 'gave_up', last_error: 'connection refused' });
    expect(h.attempts()).toBe(JOIN_DEADLINE_S / JOIN_RETRY_S + 1);
    expect(h.clock.now() - Date.parse('2026-11-28T00:00:00.000Z')).toBeLessThanOrEqual(
      JOIN_DEADLINE_S * 1000,
    );
  });
});
