// The licence's words: days left as the banner says them, limits, and a glyph for every stage
// so that colour is never the only cue.
import { describe, expect, it } from 'vitest';
import { daysLeftText, limitText, plural, PURPOSES, STAGE_WORDS } from './words.js';

describe('the licence words', () => {
  it('says the days left as a person would', () => {
    expect(daysLeftText({ days_left: null })).toBe('never expires');
    expect(daysLeftText({ days_left: 0 })).toBe('today');
    expect(daysLeftText({ days_left: 1 })).toBe('in 1 day');
    expect(daysLeftText({ days_left: 9 })).toBe('in 9 days');
  });

  it('says a missing limit is unlimited, and counts in the plural', () => {
    expect(limitText(null)).toBe('unlimited');
    expect(limitText(50)).toBe('50');
    expect(plural(1, 'install')).toBe('1 install');
    expect(plural(2, 'install')).toBe('2 installs');
  });

  it('gives each stage a glyph and words, lapsed as a failure', () => {
    for (const w of Object.values(STAGE_WORDS)) {
      expect(w.glyph).not.toBe('');
      expect(w.words).not.toBe('');
    }
    expect(STAGE_WORDS.lapsed).toMatchObject({ glyph: '✗', tone: 'fail' });
    expect(STAGE_WORDS.in_grace.words).toBe('in grace');
    expect(PURPOSES.map((p) => p.value)).toEqual(['add', 'move', 'dr', 'replace']);
  });
});
