import { describe, expect, it } from 'vitest';
import { noneMatch, strongTag } from './etag.js';

describe('If-None-Match', () => {
  const tag = strongTag('b1.42');
  it('matches the same tag, in a list, weak or not, and *', () => {
    expect(tag).toBe('"b1.42"');
    expect(noneMatch('"b1.42"', tag)).toBe(true);
    expect(noneMatch('"x", "b1.42"', tag)).toBe(true);
    expect(noneMatch('W/"b1.42"', tag)).toBe(true);
    expect(noneMatch(['"x"', '"b1.42"'], tag)).toBe(true);
    expect(noneMatch('*', tag)).toBe(true);
  });
  it('does not match another tag, a prefix, or no header', () => {
    expect(noneMatch(undefined, tag)).toBe(false);
    expect(noneMatch('"b1.4"', tag)).toBe(false);
    expect(noneMatch('"b1.421"', tag)).toBe(false);
    expect(noneMatch('b1.42', tag)).toBe(false);
    expect(noneMatch('', tag)).toBe(false);
  });
});
