import { describe, expect, it } from 'vitest';
import { wildcardMatch } from './wildcard.js';

describe('wildcardMatch: the one linear matcher', () => {
  it.each([
    ['a*b*c', 'a-b-b-c', {}, true],
    ['A*', 'abc', {}, false],
    ['A*', 'abc', { ignoreCase: true }, true],
    ['lab?itedown', 'LabSiteDown', { ignoreCase: true, anyOne: true }, true],
    ['Lab?iteDown', 'LabSiteDown', {}, false],
    ['Lab?iteDown', 'Lab?iteDown', {}, true],
    ['Lab?iteDown', 'LabSiteDown', { anyOne: true }, true],
    ['?', '', { anyOne: true }, false],
    ['*?', 'x', { anyOne: true }, true],
    ['a.c', 'abc', {}, false],
  ])('%s against %s (%o): %s', (pattern, value, options, expected) => {
    expect(wildcardMatch(pattern, value, options)).toBe(expected);
  });

  it('answers 1,000 stars against short and long values at once', () => {
    const stars = `${'*'.repeat(1000)}x`;
    const spaced = `${'*a'.repeat(1000)}*x`;
    const started = performance.now();
    for (const options of [{}, { ignoreCase: true }, { ignoreCase: true, anyOne: true }]) {
      expect(wildcardMatch(stars, 'open', options)).toBe(false);
      expect(wildcardMatch(stars, 'box', options)).toBe(true);
      expect(wildcardMatch(spaced, 'a'.repeat(5000), options)).toBe(false);
      expect(wildcardMatch(`${'?*'.repeat(1000)}`, 'a'.repeat(999), { anyOne: true })).toBe(false);
    }
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
