// Values from alerts (labels, service names) put into a connector's query language: each
// language's own quoting, so a value can never end its string and add to the query.
import { describe, expect, it } from 'vitest';
import { escaperFor, queryLanguageOfKind } from './query-escape.js';
import { fillArgs, lookupIn } from './templates.js';

const HOSTILE = 'x"} or vector(1) or up{a="';

describe('PromQL', () => {
  const promql = escaperFor('promql');
  const fill = (query: string, vars: Record<string, unknown>) =>
    fillArgs({ query }, lookupIn(vars), promql).value['query'];

  it('a value inside a double-quoted matcher stays one string', () => {
    expect(fill('up{service="{service}"}', { service: HOSTILE })).toBe(
      'up{service="x\\"} or vector(1) or up{a=\\""}',
    );
    expect(fill('up{service="{service}"}', { service: 'a\\"b\nc' })).toBe(
      'up{service="a\\\\\\"b\\nc"}',
    );
    expect(fill('up{service="{service}"}', { service: 'checkout-api' })).toBe(
      'up{service="checkout-api"}',
    );
  });

  it('single-quoted and raw strings too; a backquote cannot end a raw string', () => {
    expect(fill("up{service='{service}'}", { service: "a'b" })).toBe("up{service='a\\'b'}");
    expect(fill('up{service=`{service}`}', { service: 'a`b' })).toBe('up{service=`ab`}');
  });

  it('inside a regular-expression matcher, the value matches itself only; a list is an alternation', () => {
    expect(fill('up{service=~"{service}"}', { service: 'api.v2' })).toBe(
      'up{service=~"api\\\\.v2"}',
    );
    expect(fill('up{service!~"{d}"}', { d: ['api.v2', 'db', '.*'] })).toBe(
      'up{service!~"api\\\\.v2|db|\\\\.\\\\*"}',
    );
  });

  it('outside a string, only a number or a plain name goes in as it is', () => {
    expect(fill('up > {n}', { n: 0.5 })).toBe('up > 0.5');
    expect(fill('rate(x[{w}])', { w: '5m' })).toBe('rate(x[5m])');
    expect(fill('up > {n}', { n: '1 or vector(1)' })).toBe('up > "1 or vector(1)"');
  });
});

describe('LogQL', () => {
  const logql = escaperFor('logql');
  const fill = (query: string, vars: Record<string, unknown>) =>
    fillArgs({ query }, lookupIn(vars), logql).value['query'];

  it('stream selectors and line filters as PromQL strings; |~ is a regular expression', () => {
    expect(
      fill('{app="{service}"} |= "{label.msg}"', { service: HOSTILE, 'label.msg': 'a"b' }),
    ).toBe('{app="x\\"} or vector(1) or up{a=\\""} |= "a\\"b"');
    expect(fill('{app="web"} |~ "{label.msg}"', { 'label.msg': 'a.b' })).toBe(
      '{app="web"} |~ "a\\\\.b"',
    );
  });
});

describe('SQL', () => {
  const sql = escaperFor('sql');
  const fill = (query: string, vars: Record<string, unknown>) =>
    fillArgs({ query }, lookupIn(vars), sql).value['query'];

  it('a string literal doubles its quotes; an identifier too; a bare value is a literal', () => {
    expect(fill("SELECT 1 WHERE s = '{service}'", { service: "x' OR '1'='1" })).toBe(
      "SELECT 1 WHERE s = 'x'' OR ''1''=''1'",
    );
    expect(fill('SELECT "{label.col}" FROM t', { 'label.col': 'a"b' })).toBe(
      'SELECT "a""b" FROM t',
    );
    expect(fill('SELECT {n}', { n: 3 })).toBe('SELECT 3');
    expect(fill('SELECT {n}', { n: '1; DROP TABLE t' })).toBe("SELECT '1; DROP TABLE t'");
  });
});

describe('languages of connector kinds', () => {
  it('prometheus speaks PromQL, postgresql SQL, loki LogQL; others none', () => {
    expect(queryLanguageOfKind('prometheus')).toBe('promql');
    expect(queryLanguageOfKind('postgresql')).toBe('sql');
    expect(queryLanguageOfKind('loki')).toBe('logql');
    expect(queryLanguageOfKind('ssh')).toBeNull();
  });

  it('without an escaper, filling is as before', () => {
    expect(fillArgs({ q: 'up{s="{service}"}' }, lookupIn({ service: 'a"b' })).value['q']).toBe(
      'up{s="a"b"}',
    );
  });
});
