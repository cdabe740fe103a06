import { describe, expect, it } from 'vitest';
import { asText, fillArgs, fillText, fillValue, lookupIn, placeholders } from './templates.js';

const lookup = lookupIn(
  { service: 'app', 'change.recent.commit': 'c0ffee', n: 3, files: ['a', 'b'], nothing: null },
  { service: 'shadowed', host: '127.0.1.2' },
);

describe('templates', () => {
  it('fills placeholders, leaves PromQL braces alone', () => {
    expect(fillText('up{service="{service}",host="{host}"}', lookup)).toEqual({
      value: 'up{service="app",host="127.0.1.2"}',
      missing: [],
    });
    expect(fillText('{files} at {n}', lookup).value).toBe('a, b at 3');
  });

  it('reports names without a value and never leaves an empty string', () => {
    expect(fillText('restart {unit} on {host} ({unit})', lookup)).toEqual({
      value: 'restart {unit} on 127.0.1.2 ({unit})',
      missing: ['unit'],
    });
    expect(fillText('{nothing}', lookup).missing).toEqual(['nothing']);
  });

  it('keeps a number a number when the whole argument is one placeholder', () => {
    expect(fillValue('{n}', lookup)).toEqual({ value: 3, missing: [] });
    expect(fillValue('n={n}', lookup)).toEqual({ value: 'n=3', missing: [] });
    expect(fillValue(20, lookup)).toEqual({ value: 20, missing: [] });
  });

  it('fills a call’s arguments', () => {
    expect(
      fillArgs({ name: '{service}-config', commit: '{change.recent.commit}', limit: 20 }, lookup),
    ).toEqual({ value: { name: 'app-config', commit: 'c0ffee', limit: 20 }, missing: [] });
    expect(fillArgs({ role: '{postgresql.connections.top_idle_role}' }, lookup).missing).toEqual([
      'postgresql.connections.top_idle_role',
    ]);
    expect(fillArgs(undefined, lookup)).toEqual({ value: {}, missing: [] });
  });

  it('lists placeholders and writes values as text', () => {
    expect(placeholders('{a} {b.c} {a} {x="y"}')).toEqual(['a', 'b.c']);
    expect(asText({ a: 1 })).toBe('{"a":1}');
    expect(asText(true)).toBe('true');
  });
});
