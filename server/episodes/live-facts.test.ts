import { describe, expect, it } from 'vitest';
import { latestAction, leadingConfidence } from './live-facts.js';

describe('live facts', () => {
  it('lead with the surest hypothesis; cleared ones and none give an empty word', () => {
    const h = (confidence: string) => ({ cause: 'x', confidence });
    expect(leadingConfidence([h('unproven'), h('suspected'), h('cleared')])).toBe('suspected');
    expect(leadingConfidence([h('disputed'), h('proven')])).toBe('proven');
    expect(leadingConfidence([h('cleared')])).toBe('');
    expect(leadingConfidence([])).toBe('');
    expect(leadingConfidence([null, 'proven', { confidence: 3 }])).toBe('');
  });

  it('take the latest action state: a failure mended by a later action no longer counts', () => {
    const a = (status: string) => ({ fix: 'f', status });
    expect(latestAction([a('running'), a('taken_back')])).toBe('taken_back');
    expect(latestAction([a('taken_back'), a('verified')])).toBe('verified');
    expect(latestAction([a('not_verified')])).toBe('not_verified');
    expect(latestAction([a('')])).toBe('');
    expect(latestAction([null])).toBe('');
    expect(latestAction([])).toBe('');
  });
});
