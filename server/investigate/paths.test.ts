import { describe, expect, it } from 'vitest';
import { evaluatePath, evaluateValues, parsePath } from './paths.js';

const services = {
  units: [
    { name: 'nginx', state: 'running', pid: 10 },
    { name: 'app', state: 'failed', pid: null },
  ],
};
const commits = [
  { commit: 'c1', files: [{ path: 'config.json' }, { path: 'README.md' }] },
  { commit: 'c2', files: [{ path: 'a' }] },
];
const lookup = (name: string): unknown => ({ service: 'app', pid: 10 })[name];
const at = (answer: unknown, path: string) => evaluatePath(answer, path, lookup).value;

describe('value paths', () => {
  it('reads properties and indexes', () => {
    expect(at({ a: { b: 3 } }, 'a.b')).toBe(3);
    expect(at(services, 'units[1].state')).toBe('failed');
    expect(at(commits, '[0].commit')).toBe('c1');
    expect(at(commits, '[1].files[0].path')).toBe('a');
  });

  it('finds the first element whose key equals a templated value', () => {
    expect(at(services, 'units[name={service}].state')).toBe('failed');
    expect(at(services, 'units[name=nginx].pid')).toBe(10);
    expect(at(services, 'units[pid={pid}].name')).toBe('nginx'); // numbers compare as text
    expect(at(services, 'units[name=postgresql].state')).toBeNull();
  });

  it('gives null, and the name, when a selector value has no value', () => {
    expect(evaluatePath(services, 'units[name={nobody}].state', lookup)).toEqual({
      value: null,
      missing: ['nobody'],
    });
  });

  it('maps [*] over every element, leaving out the ones that lack the rest', () => {
    expect(at(commits, '[*].commit')).toEqual(['c1', 'c2']);
    expect(at(commits, '[*].files[*].path')).toEqual(['config.json', 'README.md', 'a']);
    expect(at(services, 'units[*].pid')).toEqual([10, null]);
    expect(at({ l: [{ a: 1 }, { b: 2 }] }, 'l[*].a')).toEqual([1]);
  });

  it('aggregates a list into one value', () => {
    const fs = { filesystems: [{ used_pct: 11 }, { used_pct: 100 }, { used_pct: 2 }] };
    expect(at(fs, 'filesystems[*].used_pct|max')).toBe(100);
    expect(at(fs, 'filesystems[*].used_pct|min')).toBe(2);
    expect(at(fs, 'filesystems[*].used_pct|sum')).toBe(113);
    expect(at(fs, 'filesystems[*].used_pct|count')).toBe(3);
    expect(at(fs, 'filesystems[*].used_pct|first')).toBe(11);
    expect(at({ l: [0, '', 3] }, 'l|any')).toBe(true);
    expect(at({ l: [0, ''] }, 'l|any')).toBe(false);
    expect(at({ l: [0, ''] }, 'l|none')).toBe(true);
    expect(at({ lines: ['a', 'b'] }, 'lines|count')).toBe(2); // a list value without [*]
  });

  it('counts an empty list as 0 and finds nothing in one as null', () => {
    expect(at([], '[*].commit|count')).toBe(0);
    expect(at([], '[*].commit|max')).toBeNull();
    expect(at([], '[*].commit|first')).toBeNull();
    expect(at([], '[0].commit')).toBeNull();
    expect(at([], '[*].n|sum')).toBe(0);
  });

  it('gives null for what is not there', () => {
    expect(at({ a: 1 }, 'b')).toBeNull();
    expect(at({ a: 1 }, 'a.b')).toBeNull();
    expect(at(null, 'a')).toBeNull();
    expect(at({ a: [1] }, 'a[5]')).toBeNull();
    expect(at({ a: 1 }, 'missing|count')).toBeNull();
    expect(at({ error: null }, 'error')).toBeNull();
  });

  it('refuses malformed paths', () => {
    expect(() => parsePath('')).toThrow();
    expect(() => parsePath('a[')).toThrow(/unclosed/);
    expect(() => parsePath('a|median')).toThrow(/aggregate/);
    expect(() => parsePath('a..b')).toThrow();
    expect(parsePath('units[name=a.b].state|first').steps).toHaveLength(3);
  });

  it('reads every value of a check, a malformed path as null', () => {
    expect(
      evaluateValues(
        services,
        { s: { path: 'units[name={service}].state' }, bad: { path: 'a[' } },
        lookup,
      ),
    ).toEqual({ s: 'failed', bad: null });
  });
});
