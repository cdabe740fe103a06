// svc-core licence clock-reset as an owner runs it on the host (licence.md §3.8): the bundle in
// a child process on a real data folder whose licence clock mark was left ahead by a clock
// that jumped forward and back. It moves the mark back and records it; not twice in 30 days;
// never while the service holds the data folder; never with the clock before the ledger.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { ADMIN_TOKEN, buildTestServer, type TestServer } from '../testing/test-server.js';
import { requireBundle, runCli } from '../testing/processes.js';

requireBundle();

const DAY = 86_400_000;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
let s: TestServer | null = null;
afterEach(async () => {
  await s?.cleanup();
  s = null;
});

/** A data folder used until now, its clock mark left `aheadDays` in the future. */
async function jumped(aheadDays: number) {
  s = await buildTestServer();
  await s.stop();
  const mark = new Date(Date.now() + aheadDays * DAY).toISOString();
  writeFileSync(join(s.dir, 'data', 'licence-clock.json'), `${JSON.stringify({ hwm: mark })}\n`);
  return { env: s.env, dir: s.dir, mark };
}

async function resets(dir: string) {
  const t = await buildTestServer({ dir });
  try {
    const r = await t.app.inject({ url: '/v1/ledger?type=licence.clock_reset', headers: auth });
    return r.json<{ events: { actor: string; data: Record<string, unknown> }[] }>().events;
  } finally {
    await t.stop();
  }
}

describe('svc-core licence clock-reset', () => {
  it('moves a mark left ahead back to the clock, records it, and not again within 30 days', async () => {
    const { env, dir, mark } = await jumped(10);
    const r = await runCli(env, ['licence', 'clock-reset']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`the licence clock mark moved back from ${mark} to `);
    const recorded = await resets(dir);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.data).toMatchObject({ source: 'cli', from: mark });
    expect(recorded[0]?.actor).toMatch(/^host:/);

    writeFileSync(
      join(dir, 'data', 'licence-clock.json'),
      `${JSON.stringify({ hwm: new Date(Date.now() + 5 * DAY).toISOString() })}\n`,
    );
    const again = await runCli(env, ['licence', 'clock-reset']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('at most once in 30 days');
    expect(await resets(dir)).toHaveLength(1);
  });

  it('a mark that is not ahead: nothing to reset, nothing recorded', async () => {
    const { env, dir } = await jumped(0);
    const r = await runCli(env, ['licence', 'clock-reset']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('nothing to reset');
    expect(await resets(dir)).toHaveLength(0);
  });

  it('refuses while the service holds the data folder, and with the clock before the ledger', async () => {
    const { env, dir } = await jumped(10);
    const running = await buildTestServer({ dir });
    try {
      const r = await runCli(env, ['licence', 'clock-reset']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('is in use by process');
    } finally {
      await running.stop();
    }
    // Events written while the clock was ahead: the host's clock is before them.
    const ahead = await buildTestServer({
      dir,
      clock: createFakeClock(new Date(Date.now() + 3 * DAY).toISOString()),
    });
    await ahead.stop();
    const r = await runCli(env, ['licence', 'clock-reset']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is before the newest ledger event');
    expect(await resets(dir)).toHaveLength(0);
  });

  it('bad usage exits 2 naming the command', async () => {
    s = await buildTestServer();
    await s.stop();
    const r = await runCli(s.env, ['licence', 'reset-everything']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('licence clock-reset');
  });
});
