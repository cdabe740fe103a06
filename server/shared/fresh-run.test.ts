import { describe, expect, it } from 'vitest';
import { oneFreshRun } from './fresh-run.js';

/** A job whose runs the test ends one by one, counting them. */
function controlled() {
  const ends: ((v: string) => void)[] = [];
  const fails: ((e: Error) => void)[] = [];
  const job = () =>
    new Promise<string>((resolve, reject) => {
      ends.push(resolve);
      fails.push(reject);
    });
  return { job, ends, fails, runs: () => ends.length };
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('one fresh run', () => {
  it('gives an ask made during a run the next run, shared by all who asked meanwhile', async () => {
    const c = controlled();
    const run = oneFreshRun(c.job);
    const first = run();
    const second = run();
    const third = run();
    expect(c.runs()).toBe(1);
    expect(second).toBe(third);
    c.ends[0]?.('one');
    expect(await first).toBe('one');
    await tick();
    // The run the second and third asked for starts only now, after the first ended.
    expect(c.runs()).toBe(2);
    c.ends[1]?.('two');
    expect(await second).toBe('two');
    expect(await third).toBe('two');
    // Nothing under way: an ask starts a run at once.
    const fourth = run();
    expect(c.runs()).toBe(3);
    c.ends[2]?.('three');
    expect(await fourth).toBe('three');
  });

  it('never overlaps two runs, even for an ask made as a run ends', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const run = oneFreshRun(async () => {
      runs += 1;
      active += 1;
      most = Math.max(most, active);
      await tick();
      active -= 1;
      return runs;
    });
    const first = run();
    const queued = run();
    // Asked the moment the first run settles: `running` is null, the queued run not started.
    const late = first.then(() => run());
    await Promise.all([first, queued, late]);
    expect(most).toBe(1);
    expect(await late).toBe(await queued);
    expect(runs).toBe(2);
  });

  it('runs again after a run that failed', async () => {
    const c = controlled();
    const run = oneFreshRun(c.job);
    const first = run();
    const second = run();
    c.fails[0]?.(new Error('home silent'));
    await expect(first).rejects.toThrow('home silent');
    await tick();
    expect(c.runs()).toBe(2);
    c.ends[1]?.('answered');
    expect(await second).toBe('answered');
  });
});
