import { describe, expect, it } from 'vitest';
import type { PackVerify } from '../packs/index.js';
import type { Finding } from './types.js';
import { checksOf, verifyFix } from './verify.js';

const finding = (id: string, readable = true): Finding => ({
  id,
  check: id.slice(0, id.lastIndexOf('.')),
  connector: 'ssh-app',
  call: 'services {}',
  service: 'app',
  says: id,
  values: {},
  excerpt: '',
  at: '2026-03-02T10:00:00.000Z',
  readable,
});
const verify: PackVerify = {
  expect: ['host.services.unit_running'],
  expect_absent: ['host.services.unit_down'],
  within_s: 10,
  alert_ends_within_s: 0,
};

function fakeTime() {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: (ms: number) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
    slept,
  };
}

describe('verifying a fix', () => {
  it('names the checks to read again', () => {
    expect(checksOf(verify)).toEqual(['host.services']);
    expect(checksOf({ ...verify, expect: ['a.b.c', 'x.y'], expect_absent: ['a.b.d'] })).toEqual([
      'a.b',
      'x',
    ]);
  });

  it('is verified as soon as the expected findings read', async () => {
    const time = fakeTime();
    const readings = [
      [finding('host.services.unit_down')],
      [finding('host.services.unit_running')],
    ];
    const r = await verifyFix(verify, {
      recheck: () => Promise.resolve(readings.shift() ?? []),
      ...time,
    });
    expect(r).toEqual({
      ok: true,
      detail: 'verified after 2 readings',
      findings: ['host.services.unit_running'],
      attempts: 2,
    });
    expect(time.slept).toEqual([2000]);
  });

  it('fails after within_s, saying what was not read', async () => {
    const time = fakeTime();
    const r = await verifyFix(verify, {
      recheck: () => Promise.resolve([finding('host.services.unit_down')]),
      ...time,
    });
    expect(r.ok).toBe(false);
    expect(r.detail).toBe(
      'not verified within 10 s: host.services.unit_running not read; host.services.unit_down still read',
    );
    expect(r.attempts).toBe(6); // at 0, 2, 4, 6, 8 and 10 s
    expect(time.now()).toBeLessThanOrEqual(10_000);
  });

  it('does not count an unreadable reading, and survives a recheck that throws', async () => {
    const time = fakeTime();
    let n = 0;
    const r = await verifyFix(verify, {
      recheck: () => {
        n += 1;
        if (n === 1) return Promise.reject(new Error('ssh down'));
        if (n === 2) return Promise.resolve([finding('host.services.unreadable', false)]);
        return Promise.resolve([finding('host.services.unit_running')]);
      },
      ...time,
    });
    expect(r).toMatchObject({ ok: true, attempts: 3 });
  });

  it('waits for the alerts to end when the verification says so', async () => {
    const time = fakeTime();
    const ended = [false, false, true];
    const ok = await verifyFix(
      { ...verify, alert_ends_within_s: 30 },
      {
        recheck: () => Promise.resolve([finding('host.services.unit_running')]),
        alertsEnded: () => ended.shift() ?? true,
        ...time,
      },
    );
    expect(ok).toMatchObject({ ok: true, detail: 'verified after 1 reading; the alerts ended' });

    const never = await verifyFix(
      { ...verify, alert_ends_within_s: 6 },
      {
        recheck: () => Promise.resolve([finding('host.services.unit_running')]),
        alertsEnded: () => false,
        ...fakeTime(),
      },
    );
    expect(never).toMatchObject({ ok: false });
    expect(never.detail).toMatch(/the alerts did not end within 6 s/);

    const blind = await verifyFix(
      { ...verify, alert_ends_within_s: 6 },
      { recheck: () => Promise.resolve([finding('host.services.unit_running')]), ...fakeTime() },
    );
    expect(blind).toMatchObject({ ok: false });
  });
});
