import { describe, expect, it } from 'vitest';
import type { PackCondition } from '../packs/index.js';
import { conditionHolds, ruleHolds, thanReference, valuesOfRule } from './conditions.js';

const c = (op: PackCondition['op'], than?: PackCondition['than']): PackCondition =>
  than === undefined ? { value: 'v', op } : { value: 'v', op, than };

describe('conditions', () => {
  it('compares equal values', () => {
    expect(conditionHolds(c('eq', 'running'), 'running')).toBe(true);
    expect(conditionHolds(c('eq', 0), 0)).toBe(true);
    expect(conditionHolds(c('eq', 1), '1')).toBe(true);
    expect(conditionHolds(c('eq', true), true)).toBe(true);
    expect(conditionHolds(c('eq', true), 'true')).toBe(false);
    expect(conditionHolds(c('ne', 'running'), 'stopped')).toBe(true);
  });

  it('compares numbers only for gt, ge, lt, le', () => {
    expect(conditionHolds(c('ge', 95), 100)).toBe(true);
    expect(conditionHolds(c('ge', 95), 95)).toBe(true);
    expect(conditionHolds(c('gt', 95), 95)).toBe(false);
    expect(conditionHolds(c('lt', 0.5), 0.0042)).toBe(true);
    expect(conditionHolds(c('le', 3), '3')).toBe(true);
    expect(conditionHolds(c('lt', 3), 'many')).toBe(false);
    expect(conditionHolds(c('lt', 3), Number.NaN)).toBe(false);
  });

  it('tests membership and regular expressions', () => {
    expect(conditionHolds(c('in', ['stopped', 'failed']), 'failed')).toBe(true);
    expect(conditionHolds(c('in', ['stopped', 'failed']), 'running')).toBe(false);
    expect(conditionHolds(c('not_in', ['stopped', 'failed']), 'running')).toBe(true);
    expect(conditionHolds(c('matches', '^5\\d\\d$'), 502)).toBe(true);
    expect(conditionHolds(c('matches', '(unclosed'), 'x')).toBe(false);
  });

  it('makes every condition on null false except absent', () => {
    for (const op of ['eq', 'ne', 'gt', 'lt', 'in', 'not_in', 'matches', 'present'] as const)
      expect(conditionHolds(c(op, op === 'in' || op === 'not_in' ? ['x'] : 1), null)).toBe(false);
    expect(conditionHolds(c('absent'), null)).toBe(true);
    expect(conditionHolds(c('absent'), 0)).toBe(false);
    expect(conditionHolds(c('present'), 0)).toBe(true);
    expect(conditionHolds(c('present'), [])).toBe(true);
  });

  it('holds on a list when any element holds (every element for ne and not_in)', () => {
    expect(conditionHolds(c('matches', 'error'), ['ok', 'an error'])).toBe(true);
    expect(conditionHolds(c('ge', 90), [10, 95])).toBe(true);
    expect(conditionHolds(c('ge', 90), [])).toBe(false);
    expect(conditionHolds(c('ne', 'x'), ['a', 'x'])).toBe(false);
    expect(conditionHolds(c('not_in', ['x']), ['a', 'b'])).toBe(true);
  });

  it('holds a rule when every condition holds, and names the values it looked at', () => {
    const rule = {
      id: 'slow',
      says: 's',
      when: [
        { value: 'ok', op: 'eq' as const, than: true },
        { value: 'ms', op: 'ge' as const, than: 1000 },
      ],
    };
    expect(ruleHolds(rule, { ok: true, ms: 2011, other: 1 })).toBe(true);
    expect(ruleHolds(rule, { ok: false, ms: 2011 })).toBe(false);
    expect(ruleHolds(rule, { ok: true })).toBe(false);
    expect(valuesOfRule(rule, { ok: true, ms: 2011, other: 1 })).toEqual({ ok: true, ms: 2011 });
  });

  it('mentions: the text names one of the words (3 characters or more), listed or read', () => {
    const lines = ['09:58 database: database "shop_v2" does not exist', '09:59 GET / 500'];
    expect(conditionHolds(c('mentions', ['shop_v2']), lines)).toBe(true);
    expect(conditionHolds(c('mentions', ['pool_max_6', 'x']), lines)).toBe(false);
    // Words shorter than 3 characters never count (a "6" is in every log).
    expect(conditionHolds(c('mentions', ['50', 'GE']), lines)).toBe(false);
    // `{check.value}`: what another check read for the same service.
    const read = { 'change.diff.added': ['shop_v2'] };
    const ref = c('mentions', '{change.diff.added}');
    expect(thanReference(ref)).toBe('change.diff.added');
    expect(conditionHolds(ref, lines, (n) => read[n as keyof typeof read])).toBe(true);
    // Nothing read to compare with: false, never a match on nothing.
    expect(conditionHolds(ref, lines, () => undefined)).toBe(false);
    expect(conditionHolds(ref, lines)).toBe(false);
    expect(conditionHolds(c('mentions', []), lines)).toBe(false);
    expect(conditionHolds(ref, null, () => ['shop_v2'])).toBe(false);
  });

  it('error_names: only a line that reads as an error counts', () => {
    const loaded = ['config loaded: database shop_v2@127.0.1.3:5432, pool 5'];
    expect(conditionHolds(c('mentions', ['shop_v2']), loaded)).toBe(true);
    expect(conditionHolds(c('error_names', ['shop_v2']), loaded)).toBe(false);
    const failed = [...loaded, 'database: database "shop_v2" does not exist'];
    expect(conditionHolds(c('error_names', ['shop_v2']), failed)).toBe(true);
    expect(conditionHolds(c('error_names', ['shop_v2']), ['GET /: connection refused'])).toBe(
      false,
    );
    expect(thanReference(c('error_names', '{change.diff.added}'))).toBe('change.diff.added');
  });

  it('error_names: a failure word inside a name (a host, a file) does not make a line an error', () => {
    // The lab's db-host-unresolvable after bad-deploy was healed: the revert brought `shop`
    // back, and the app's config line names the new host db.lab.invalid. The line is no
    // error; the lookups that fail name the host, not the database the revert set.
    const loaded = ['config loaded: database shop@db.lab.invalid:32847, pool 5, slow_ms 0'];
    expect(conditionHolds(c('error_names', ['shop']), loaded)).toBe(false);
    expect(conditionHolds(c('error_names', ['shop']), ['read /var/log/shop/failed.log'])).toBe(
      false,
    );
    // An errno code is a failure word of its own: the lookups name the host.
    const lookups = [...loaded, 'GET /: getaddrinfo ENOTFOUND db.lab.invalid'];
    expect(conditionHolds(c('error_names', ['db.lab.invalid']), lookups)).toBe(true);
    expect(conditionHolds(c('error_names', ['shop']), lookups)).toBe(false);
    expect(conditionHolds(c('error_names', ['shop']), ['database: EAI_AGAIN shop'])).toBe(true);
    expect(conditionHolds(c('error_names', ['shop']), ['feature ENABLED for shop'])).toBe(false);
    // A failure word as a word still counts beside a name.
    expect(
      conditionHolds(c('error_names', ['shop']), ['shop@db.lab.example: invalid password']),
    ).toBe(true);
  });
});
