import { describe, expect, it } from 'vitest';
import { actionToWatch, leadingConfidence } from './live-facts.js';

describe('live facts', () => {
  it('lead with the surest hypothesis; cleared ones and none give an empty word', () => {
    const h = (confidence: string) => ({ cause: 'x', confidence });
    expect(leadingConfidence([h('unproven'), h('suspected'), h('cleared')])).toBe('suspected');
    expect(leadingConfidence([h('disputed'), h('proven')])).toBe('proven');
    expect(leadingConfidence([h('cleared')])).toBe('');
    expect(leadingConfidence([])).toBe('');
    expect(leadingConfidence([null, 'proven', { confidence: 3 }])).toBe('');
  });

  it('watch a failed or taken-back action before one under way or verified', () => {
    const a = (status: string) => ({ fix: 'f', status });
    expect(actionToWatch([a('verified'), a('taken_back')])).toBe('taken_back');
    expect(actionToWatch([a('running'), a('not_verified')])).toBe('not_verified');
    expect(actionToWatch([a('shadow'), a('running')])).toBe('running');
    expect(actionToWatch([a('')])).toBe('');
    expect(actionToWatch([])).toBe('');
  });
});
