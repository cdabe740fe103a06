// The licence's words: a stage with its glyph, counts, limits and days left, and what each
// purpose of a new install means. The top bar's banner uses daysLeftText through index.ts, so
// this file stays small: it is part of the first load.
import type { LicenceStage, StatusLicence } from '../status/index.js';
import type { Purpose } from './api.js';

export const PURPOSES: readonly { value: Purpose; words: string }[] = [
  { value: 'add', words: 'add: another install on this licence' },
  { value: 'move', words: 'move: this install moved to new hardware' },
  { value: 'dr', words: 'dr: the disaster-recovery install' },
  { value: 'replace', words: 'replace: takes over from an install being retired' },
];

/** The stage in words, with a glyph so colour is never the only cue. */
export const STAGE_WORDS: Record<LicenceStage, { glyph: string; words: string; tone: string }> = {
  not_yet: { glyph: '○', words: 'not started yet', tone: 'warn' },
  valid: { glyph: '✓', words: 'valid', tone: 'ok' },
  expiring: { glyph: '!', words: 'expiring', tone: 'warn' },
  in_grace: { glyph: '!', words: 'in grace', tone: 'warn' },
  lapsed: { glyph: '✗', words: 'lapsed', tone: 'fail' },
};

export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${String(n)} ${n === 1 ? one : many}`;

/** "50", or "unlimited" for null. */
export const limitText = (n: number | null): string => (n === null ? 'unlimited' : String(n));

/** "in 9 days" / "today" for a licence's days left. */
export function daysLeftText(l: Pick<StatusLicence, 'days_left'>): string {
  if (l.days_left === null) return 'never expires';
  if (l.days_left === 0) return 'today';
  return `in ${plural(l.days_left, 'day')}`;
}
