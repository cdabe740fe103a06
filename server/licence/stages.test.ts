import { describe, expect, it } from 'vitest';
import { stageOf } from './stages.js';

const L = {
  not_before: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-12-31T00:00:00.000Z',
  grace_days: 30,
  warn_days: [30, 14, 7, 1],
};
const at = (iso: string, deltaMs = 0) => Date.parse(iso) + deltaMs;
const DAY = 86_400_000;

describe('stageOf: the boundaries, to the second', () => {
  it.each([
    ['before not_before', at(L.not_before, -1000), 'not_yet'],
    ['31 days before expiry', at(L.expires_at, -31 * DAY), 'valid'],
    ['30 days + 1 s before', at(L.expires_at, -30 * DAY - 1000), 'valid'],
    ['30 days - 1 s before', at(L.expires_at, -30 * DAY + 1000), 'expiring'],
    ['1 s before expiry', at(L.expires_at, -1000), 'expiring'],
    ['at expiry', at(L.expires_at), 'in_grace'],
    ['1 s after expiry', at(L.expires_at, 1000), 'in_grace'],
    ['1 s before grace ends', at(L.expires_at, 30 * DAY - 1000), 'in_grace'],
    ['grace end', at(L.expires_at, 30 * DAY), 'lapsed'],
    ['1 s after grace', at(L.expires_at, 30 * DAY + 1000), 'lapsed'],
  ])('%s → %s', (_name, t, stage) => {
    expect(stageOf(L, t).stage).toBe(stage);
  });
  it('names the warning threshold crossed', () => {
    expect(stageOf(L, at(L.expires_at, -10 * DAY)).warn_threshold).toBe(14);
    expect(stageOf(L, at(L.expires_at, -12 * 3600_000)).warn_threshold).toBe(1);
  });
  it('a perpetual licence never expires', () => {
    expect(stageOf({ ...L, expires_at: null }, at('2099-01-01T00:00:00.000Z'))).toMatchObject({
      stage: 'valid',
      days_left: null,
    });
  });
});
