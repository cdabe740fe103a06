import { describe, expect, it } from 'vitest';
import { createDiscoverySchedule } from './discovery-schedule.js';

const log = { info: () => undefined, warn: () => undefined };

function bench(over: { working?: boolean; last?: string | null } = {}) {
  const state = {
    working: over.working ?? true,
    last: over.last ?? null,
    runs: 0,
    now: Date.parse('2026-03-02T10:00:00Z'),
  };
  let release: () => void = () => undefined;
  const schedule = createDiscoverySchedule({
    discover: () => {
      state.runs += 1;
      return { done: new Promise<void>((r) => (release = r)) };
    },
    working: () => state.working,
    lastRun: () => state.last,
    now: () => state.now,
    everyMs: 3_600_000,
    log,
  });
  return { state, schedule, finish: () => release() };
}

describe('discovery on a schedule', () => {
  it('runs once a connection works and the estate was never discovered', async () => {
    const b = bench({ working: false });
    expect(b.schedule.tick()).toBeNull();
    b.state.working = true;
    const run = b.schedule.tick();
    expect(run).not.toBeNull();
    // A run under way is joined, never doubled.
    expect(b.schedule.tick()).toBeNull();
    b.finish();
    await run;
    expect(b.state.runs).toBe(1);
  });

  it('runs again only when the last run is an interval old', async () => {
    const b = bench({ last: '2026-03-02T09:30:00Z' });
    expect(b.schedule.tick()).toBeNull();
    b.state.now = Date.parse('2026-03-02T10:30:00Z');
    const run = b.schedule.tick();
    expect(run).not.toBeNull();
    b.finish();
    await run;
    expect(b.state.runs).toBe(1);
  });

  it('keeps going after a run that failed', async () => {
    const b = bench();
    const run = createDiscoverySchedule({
      discover: () => ({ done: Promise.reject(new Error('boom')) }),
      working: () => true,
      lastRun: () => null,
      now: () => b.state.now,
      log,
    }).tick();
    await expect(run).resolves.toBeUndefined();
  });
});
