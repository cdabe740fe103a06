import { describe, expect, it } from 'vitest';
import { checkPathSyntax } from './path-syntax.js';

describe('checkPathSyntax', () => {
  it.each([
    'a',
    'a.b',
    'a[2]',
    'a[name={service}]',
    'a[*].b',
    'units[name={service}].active_state',
    'a[*].b|count',
    'a|max',
    '[0].value',
    '[*].x|any',
    'data.result[0].value[1]',
    'a-b.c_d[key=some value]',
  ])('accepts %s', (path) => {
    expect(checkPathSyntax(path)).toBeNull();
  });

  it.each([
    ['', 'is empty'],
    ['a..b', 'empty name at character 3'],
    ['.a', 'empty name at character 1'],
    ['a.', 'empty name at character 3'],
    ['a[', 'unclosed ['],
    ['a[]', 'empty []'],
    ['a[x]', 'use [n], [*] or [key=value]'],
    ['a[=x]', 'bad key'],
    ['a[k=]', 'no value after ='],
    ['a|avg', 'ends in |avg'],
    ['a|count|sum', 'ends in |count|sum'],
    ['|count', 'no path before |'],
    ['a b', 'unexpected " " at character 2'],
    ['a]', 'unexpected "]"'],
  ])('refuses %j: %s', (path, why) => {
    expect(checkPathSyntax(path)).toContain(why);
  });
});
