import { describe, expect, it } from 'vitest';
import { unconfirmedLimit } from './licence-view.js';

const DAY = 86_400_000;

describe('unconfirmedLimit', () => {
  it('strict: 72 hours unless the licence names its own days', () => {
    expect(unconfirmedLimit({}, 'strict')?.ms).toBe(3 * DAY);
    expect(
      unconfirmedLimit({ check: { min_mode: 'auto', max_unconfirmed_days: 10 } }, 'strict')?.ms,
    ).toBe(10 * DAY);
  });

  it('auto: no limit unless the licence names days; offline: never (it never asks)', () => {
    expect(unconfirmedLimit({}, 'auto')).toBeNull();
    expect(
      unconfirmedLimit({ check: { min_mode: 'offline', max_unconfirmed_days: 1 } }, 'auto')?.words,
    ).toBe('1 day');
    expect(
      unconfirmedLimit({ check: { min_mode: 'offline', max_unconfirmed_days: 1 } }, 'offline'),
    ).toBeNull();
  });
});
