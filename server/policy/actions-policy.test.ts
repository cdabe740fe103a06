// The change_windows and actions sections: what they accept, the 400s naming the field, and
// the two questions the decision table and the executor ask of them.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../shared/errors.js';
import { changeWindowNow, fixPermission } from './actions-policy.js';
import { checkPolicy, DEFAULT_POLICY, type ChangeWindow } from './policy.schemas.js';

function refusal(input: unknown): { field: unknown; message: string } {
  try {
    checkPolicy(input);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    const e = err as InvalidInputError;
    return { field: e.details['field'], message: e.message };
  }
  throw new Error('accepted');
}

const windows = (...change_windows: ChangeWindow[]) => checkPolicy({ change_windows });

// 2026-11-20 is a Friday, 2026-11-22 a Sunday, 2026-11-23 a Monday.
describe('change_windows', () => {
  it('defaults to none, and accepts absolute and weekly windows', () => {
    expect(DEFAULT_POLICY.change_windows).toEqual([]);
    const list: ChangeWindow[] = [
      {
        name: 'black-friday',
        services: ['shop-*'],
        mode: 'freeze',
        starts: '2026-11-27T00:00:00Z',
        ends: '2026-11-30T00:00:00Z',
        reason: 'peak trade',
      },
      {
        name: 'office-hours',
        services: ['payments'],
        mode: 'only',
        weekly: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '08:00', to: '17:00' },
      },
    ];
    expect(checkPolicy({ change_windows: list }).change_windows).toEqual(list);
  });

  it('refuses a window that is neither or both kinds, bad times and twice-used names', () => {
    const w = { name: 'w', services: ['*'], mode: 'freeze' };
    const weekly = { days: ['mon'], from: '08:00', to: '17:00' };
    expect(refusal({ change_windows: [w] })).toEqual({
      field: 'change_windows.0',
      message: 'change_windows.0 needs starts and ends, or weekly',
    });
    expect(
      refusal({
        change_windows: [
          { ...w, weekly, starts: '2026-11-27T00:00:00Z', ends: '2026-11-28T00:00:00Z' },
        ],
      }).field,
    ).toBe('change_windows.0.weekly');
    expect(refusal({ change_windows: [{ ...w, starts: '2026-11-27T00:00:00Z' }] })).toEqual({
      field: 'change_windows.0.ends',
      message: 'change_windows.0.ends is required with starts',
    });
    expect(
      refusal({
        change_windows: [{ ...w, starts: '2026-11-27T00:00:00Z', ends: '2026-11-26T00:00:00Z' }],
      }),
    ).toEqual({ field: 'change_windows.0.ends', message: 'change_windows.0.ends must be after starts' }); // prettier-ignore
    expect(
      refusal({ change_windows: [{ ...w, weekly: { ...weekly, from: '24:00' } }] }).field,
    ).toBe('change_windows.0.weekly.from');
    expect(
      refusal({ change_windows: [{ ...w, weekly: { ...weekly, days: ['monday'] } }] }).field,
    ).toMatch(/^change_windows\.0\.weekly\.days/);
    expect(refusal({ change_windows: [{ ...w, weekly: { ...weekly, days: [] } }] }).field).toBe(
      'change_windows.0.weekly.days',
    );
    expect(refusal({ change_windows: [{ ...w, mode: 'thaw', weekly }] }).field).toBe(
      'change_windows.0.mode',
    );
    expect(
      refusal({
        change_windows: [
          { ...w, weekly },
          { ...w, weekly },
        ],
      }),
    ).toEqual({
      field: 'change_windows.1.name',
      message: 'change_windows.1.name is not unique: w comes twice',
    });
    expect(refusal({ change_windows: [{ ...w, weekly, extra: 1 }] }).field).toBe(
      'change_windows.0.extra',
    );
  });

  it('a freeze window forbids actions inside it, until it ends', () => {
    const p = windows({
      name: 'black-friday',
      services: ['shop-*'],
      mode: 'freeze',
      starts: '2026-11-27T00:00:00Z',
      ends: '2026-11-30T00:00:00Z',
    });
    expect(changeWindowNow(p, 'shop-api', '2026-11-27T00:00:00.000Z')).toEqual({
      name: 'black-friday',
      until: '2026-11-30T00:00:00.000Z',
    });
    expect(changeWindowNow(p, 'shop-api', '2026-11-30T00:00:00.000Z')).toBeNull();
    expect(changeWindowNow(p, 'shop-api', '2026-11-26T23:59:59.999Z')).toBeNull();
    expect(changeWindowNow(p, 'payments', '2026-11-28T00:00:00.000Z')).toBeNull();
  });

  it('a weekly freeze over midnight, and openings that touch join into one', () => {
    const p = windows(
      {
        name: 'weekend',
        services: ['*'],
        mode: 'freeze',
        weekly: { days: ['fri'], from: '18:00', to: '00:00' },
      },
      {
        name: 'weekend-days',
        services: ['*'],
        mode: 'freeze',
        weekly: { days: ['sat', 'sun'], from: '00:00', to: '00:00' },
      },
      {
        name: 'nightly',
        services: ['db'],
        mode: 'freeze',
        weekly: { days: ['mon'], from: '22:00', to: '02:00' },
      },
    );
    expect(changeWindowNow(p, 'app', '2026-11-20T17:59:00.000Z')).toBeNull();
    // Friday 18:00 to Saturday 00:00; Saturday and Sunday whole days: ends Monday 00:00.
    expect(changeWindowNow(p, 'app', '2026-11-20T18:00:00.000Z')).toEqual({
      name: 'weekend',
      until: '2026-11-21T00:00:00.000Z',
    });
    expect(changeWindowNow(p, 'app', '2026-11-21T10:00:00.000Z')).toEqual({
      name: 'weekend-days',
      until: '2026-11-23T00:00:00.000Z',
    });
    expect(changeWindowNow(p, 'app', '2026-11-23T00:00:00.000Z')).toBeNull();
    // Monday 22:00 to Tuesday 02:00, seen from Tuesday morning.
    expect(changeWindowNow(p, 'db', '2026-11-24T01:30:00.000Z')).toEqual({
      name: 'nightly',
      until: '2026-11-24T02:00:00.000Z',
    });
    expect(changeWindowNow(p, 'db', '2026-11-24T02:00:00.000Z')).toBeNull();
  });

  it('of several freezes, the one that ends last counts', () => {
    const p = windows(
      { name: 'short', services: ['*'], mode: 'freeze', starts: '2026-11-27T00:00:00Z', ends: '2026-11-27T06:00:00Z' },
      { name: 'long', services: ['app'], mode: 'freeze', starts: '2026-11-26T00:00:00Z', ends: '2026-11-28T00:00:00Z' },
    ); // prettier-ignore
    expect(changeWindowNow(p, 'app', '2026-11-27T01:00:00Z')?.name).toBe('long');
  });

  it('only windows: actions only inside one of them; outside, blocked until the next opens', () => {
    const p = windows(
      {
        name: 'office-hours',
        services: ['payments'],
        mode: 'only',
        weekly: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '08:00', to: '17:00' },
      },
      {
        name: 'sunday-slot',
        services: ['pay*'],
        mode: 'only',
        starts: '2026-11-22T12:00:00Z',
        ends: '2026-11-22T13:00:00Z',
      },
    );
    expect(changeWindowNow(p, 'payments', '2026-11-23T09:00:00.000Z')).toBeNull();
    expect(changeWindowNow(p, 'payments', '2026-11-22T12:30:00.000Z')).toBeNull();
    expect(changeWindowNow(p, 'payments', '2026-11-22T10:00:00.000Z')).toEqual({
      name: 'sunday-slot',
      until: '2026-11-22T12:00:00.000Z',
    });
    expect(changeWindowNow(p, 'payments', '2026-11-22T14:00:00.000Z')).toEqual({
      name: 'office-hours',
      until: '2026-11-23T08:00:00.000Z',
    });
    expect(changeWindowNow(p, 'payments', '2026-11-20T17:00:00.000Z')).toEqual({
      name: 'sunday-slot',
      until: '2026-11-22T12:00:00.000Z',
    });
    // A service no only window names is not restricted.
    expect(changeWindowNow(p, 'app', '2026-11-22T10:00:00.000Z')).toBeNull();
    // An only window whose time has passed restricts nothing.
    const past = windows({
      name: 'once',
      services: ['app'],
      mode: 'only',
      starts: '2026-01-01T00:00:00Z',
      ends: '2026-01-02T00:00:00Z',
    });
    expect(changeWindowNow(past, 'app', '2026-11-22T10:00:00.000Z')).toBeNull();
  });

  it('a freeze wins inside an only window', () => {
    const p = windows(
      { name: 'always', services: ['*'], mode: 'only', weekly: { days: ['sun'], from: '00:00', to: '00:00' } },
      { name: 'hold', services: ['app'], mode: 'freeze', starts: '2026-11-22T10:00:00Z', ends: '2026-11-22T11:00:00Z' },
    ); // prettier-ignore
    expect(changeWindowNow(p, 'app', '2026-11-22T10:30:00Z')).toEqual({
      name: 'hold',
      until: '2026-11-22T11:00:00.000Z',
    });
    expect(changeWindowNow(p, 'app', '2026-11-22T11:30:00Z')).toBeNull();
  });
});

describe('actions', () => {
  it('defaults to no rules: every fix up to medium risk allowed, none safe', () => {
    expect(DEFAULT_POLICY.actions).toEqual({ rules: [] });
    const p = checkPolicy({});
    expect(fixPermission(p, 'app', { id: 'restart_unit', risk: 'low' })).toMatchObject({
      allowed: true,
      safe: false,
    });
    expect(fixPermission(p, 'app', { id: 'revert_deploy', risk: 'medium' }).allowed).toBe(true);
    expect(fixPermission(p, 'app', { id: 'kill_process', risk: 'high' })).toEqual({
      allowed: false,
      safe: false,
      why: 'no action rules: a high-risk fix is not allowed (the default allows up to medium)',
    });
  });

  it('the first rule naming the service and the fix decides; no rule: not allowed', () => {
    const p = checkPolicy({
      actions: {
        rules: [
          { services: ['payments'], fixes: ['*'], max_risk: 'low', safe: false },
          { services: ['*'], fixes: ['restart_*', 'clear_cache'], max_risk: 'medium', safe: true },
          { services: ['db-*'], fixes: ['terminate_idle'], max_risk: 'high', safe: false },
        ],
      },
    });
    expect(fixPermission(p, 'app', { id: 'restart_unit', risk: 'low' })).toEqual({
      allowed: true,
      safe: true,
      why: 'action rule 1 allows restart_unit on app and lists it as safe',
    });
    expect(fixPermission(p, 'payments', { id: 'restart_unit', risk: 'low' })).toEqual({
      allowed: true,
      safe: false,
      why: 'action rule 0 allows restart_unit on payments, asking first',
    });
    expect(fixPermission(p, 'payments', { id: 'restart_unit', risk: 'medium' })).toEqual({
      allowed: false,
      safe: false,
      why: 'action rule 0 allows fixes up to low risk; restart_unit is medium',
    });
    expect(fixPermission(p, 'db-1', { id: 'terminate_idle', risk: 'high' })).toMatchObject({
      allowed: true,
      safe: false,
    });
    expect(fixPermission(p, 'app', { id: 'terminate_idle', risk: 'low' })).toEqual({
      allowed: false,
      safe: false,
      why: 'no action rule names fix terminate_idle on service app',
    });
  });

  it('refuses bad rules naming the field', () => {
    const rule = { services: ['*'], fixes: ['restart_unit'], max_risk: 'low', safe: true };
    expect(refusal({ actions: { rules: [{ ...rule, max_risk: 'none' }] } }).field).toBe(
      'actions.rules.0.max_risk',
    );
    expect(refusal({ actions: { rules: [{ ...rule, fixes: [] }] } }).field).toBe(
      'actions.rules.0.fixes',
    );
    expect(refusal({ actions: { rules: [{ ...rule, fixes: ['a b'] }] } }).field).toBe(
      'actions.rules.0.fixes.0',
    );
    expect(refusal({ actions: { rules: [rule, { ...rule, fixes: ['x', '**'] }] } })).toEqual({
      field: 'actions.rules.1.fixes.1',
      message: 'actions.rules.1.fixes.1 is only wildcards: write * once',
    });
    expect(refusal({ actions: { rules: [{ ...rule, services: [' '] }] } }).field).toBe(
      'actions.rules.0.services.0',
    );
    expect(refusal({ actions: { rules: [{ ...rule, safe: 'yes' }] } }).field).toBe(
      'actions.rules.0.safe',
    );
    expect(refusal({ actions: { rules: [{ services: ['*'], fixes: ['x'], max_risk: 'low' }] } })).toEqual({
      field: 'actions.rules.0.safe',
      message: 'actions.rules.0.safe is required',
    }); // prettier-ignore
    expect(refusal({ actions: {} }).field).toBe('actions.rules');
  });
});
