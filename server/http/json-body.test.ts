// What the strict JSON check finds in a body's text: duplicate keys and numbers that overflow,
// each named by its JSON path; everything else (valid or malformed) is left to JSON.parse.
import { describe, expect, it } from 'vitest';
import { ambiguityOf } from './json-body.js';

describe('ambiguityOf', () => {
  it('names a duplicate key by its path', () => {
    const text = JSON.stringify({ alerts: [{}, {}, {}, { labels: { a: '1' } }] }).replace(
      '{"a":"1"}',
      '{"service":"api","a":"1","service":"db"}',
    );
    expect(ambiguityOf(text)).toEqual({
      path: 'body.alerts[3].labels',
      why: 'duplicate key "service"',
    });
  });

  it('sees a duplicate spelled with escapes, and at the top level', () => {
    expect(ambiguityOf('{"a":1,"\\u0061":2}')).toEqual({
      path: 'body',
      why: 'duplicate key "a"',
    });
    expect(ambiguityOf('{"x y":{"k":1,"k":2}}')).toEqual({
      path: 'body["x y"]',
      why: 'duplicate key "k"',
    });
  });

  it('names a number that overflows', () => {
    expect(ambiguityOf('{"data":{"n":[1,2,1e400]}}')).toEqual({
      path: 'body.data.n[2]',
      why: 'number 1e400 is out of range',
    });
    expect(ambiguityOf(`[-${'9'.repeat(400)}]`)).toMatchObject({ path: 'body[0]' });
    expect(ambiguityOf('1E+999')).toMatchObject({ path: 'body' });
  });

  it('passes ordinary JSON, the same key in different objects, and strings that look like keys', () => {
    expect(
      ambiguityOf('{"a":{"k":1},"b":{"k":1},"c":"\\"k\\":1,\\"k\\":2","d":[1.5e10,-0,1e-400]}'),
    ).toBe(null);
    expect(ambiguityOf('[]')).toBe(null);
    expect(ambiguityOf('"text"')).toBe(null);
    expect(ambiguityOf(' {"a" : [ true , false , null ] } ')).toBe(null);
  });

  it('leaves malformed text to the parser', () => {
    expect(ambiguityOf('{"alerts": [')).toBe(null);
    expect(ambiguityOf('{"a":1,,}')).toBe(null);
    expect(ambiguityOf('{"a')).toBe(null);
  });

  it('reads deep nesting without recursion', () => {
    expect(ambiguityOf(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBe(null);
    const deep = `${'{"a":'.repeat(50_000)}{"k":1,"k":2}${'}'.repeat(50_000)}`;
    expect(ambiguityOf(deep)?.why).toBe('duplicate key "k"');
  });

  it('keeps up with a large alert group (linear, a few tens of ms for 3.6 MiB)', () => {
    const alerts = Array.from({ length: 20_000 }, (_, i) => ({
      status: 'firing',
      labels: { alertname: 'HighLatency', service: `svc-${String(i)}`, severity: 'warning' },
      annotations: { summary: 'p99 above 2 s on the checkout path, for ten minutes' },
      startsAt: '2026-11-22T09:00:00Z',
      endsAt: '0001-01-01T00:00:00Z',
      fingerprint: `fp-${String(i)}`,
      value: 1.25e3,
    }));
    const text = JSON.stringify({ version: '4', status: 'firing', alerts });
    ambiguityOf(text);
    const started = performance.now();
    expect(ambiguityOf(text)).toBe(null);
    const parse = performance.now();
    JSON.parse(text);
    const parsed = performance.now();
    // Within a small multiple of the native parser; generous for a shared 2-core machine.
    expect(parse - started).toBeLessThan(Math.max(250, 6 * (parsed - parse)));
  });
});
