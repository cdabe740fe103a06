import { describe, expect, it } from 'vitest';
import {
  clip,
  isoFromUnix,
  parseAlerts,
  parseInstant,
  parseRange,
  parseSampleValue,
  parseStringList,
  parseTargets,
  unwrap,
} from './prometheus.parse.js';

const W = 'prometheus query "up"';

describe('parseSampleValue', () => {
  it('reads Prometheus number strings, special values included', () => {
    expect(parseSampleValue('1')).toBe(1);
    expect(parseSampleValue('1e+00')).toBe(1);
    expect(parseSampleValue('-0.25')).toBe(-0.25);
    expect(parseSampleValue('NaN')).toBeNaN();
    expect(parseSampleValue('+Inf')).toBe(Number.POSITIVE_INFINITY);
    expect(parseSampleValue('-Inf')).toBe(Number.NEGATIVE_INFINITY);
  });

  it('refuses what is not a number', () => {
    expect(() => parseSampleValue('abc')).toThrow(/not a number/);
    expect(() => parseSampleValue('')).toThrow(/not a number/);
    expect(() => parseSampleValue(null)).toThrow(/not a string/);
  });
});

describe('unwrap', () => {
  it('returns data of a success envelope', () => {
    expect(unwrap(200, '{"status":"success","data":[1]}', W)).toEqual([1]);
  });

  it("names the call and Prometheus' errorType and error", () => {
    const body = '{"status":"error","errorType":"bad_data","error":"1:5: parse error"}';
    expect(() => unwrap(400, body, W)).toThrow(
      'prometheus query "up" failed: bad_data: 1:5: parse error',
    );
  });

  it('reports a non-JSON error answer with its status and a clipped body', () => {
    expect(() => unwrap(502, `<html>${'x'.repeat(500)}</html>`, W)).toThrow(
      /failed: HTTP 502: <html>x+…$/,
    );
  });

  it('refuses a 200 that is not a Prometheus answer', () => {
    expect(() => unwrap(200, 'hello', W)).toThrow(/unexpected answer from Prometheus \(not JSON\)/);
    expect(() => unwrap(200, '{"x":1}', W)).toThrow(/no success envelope/);
  });
});

describe('parseInstant', () => {
  it('reads a vector', () => {
    const data = {
      resultType: 'vector',
      result: [
        { metric: { __name__: 'up', job: 'a' }, value: [1700000000.5, '1'] },
        { metric: { job: 'b' }, value: [1700000000.5, 'NaN'] },
        { metric: { job: 'h' }, histogram: [1700000000.5, { count: '3' }] },
      ],
    };
    const samples = parseInstant(data, W);
    expect(samples).toHaveLength(2);
    expect(samples[0]).toEqual({
      metric: { __name__: 'up', job: 'a' },
      value: 1,
      at: '2023-11-14T22:13:20.500Z',
    });
    expect(samples[1]?.value).toBeNaN();
  });

  it('reads a scalar as one sample without labels', () => {
    expect(parseInstant({ resultType: 'scalar', result: [1700000000, '+Inf'] }, W)).toEqual([
      { metric: {}, value: Number.POSITIVE_INFINITY, at: '2023-11-14T22:13:20.000Z' },
    ]);
  });

  it('refuses range vectors and strings with a hint', () => {
    expect(() => parseInstant({ resultType: 'matrix', result: [] }, W)).toThrow(/use range_query/);
    expect(() => parseInstant({ resultType: 'string', result: [0, 'x'] }, W)).toThrow(/string/);
    expect(() => parseInstant({ resultType: 'vector', result: {} }, W)).toThrow(
      /prometheus query "up": unexpected answer/,
    );
  });
});

describe('parseRange', () => {
  it('reads a matrix', () => {
    const data = {
      resultType: 'matrix',
      result: [
        {
          metric: { job: 'a' },
          values: [
            [1700000000, '1'],
            [1700000015, '-Inf'],
          ],
        },
      ],
    };
    expect(parseRange(data, W)).toEqual([
      {
        metric: { job: 'a' },
        values: [
          ['2023-11-14T22:13:20.000Z', 1],
          ['2023-11-14T22:13:35.000Z', Number.NEGATIVE_INFINITY],
        ],
      },
    ]);
  });

  it('refuses a vector', () => {
    expect(() => parseRange({ resultType: 'vector', result: [] }, W)).toThrow(/expected matrix/);
  });
});

describe('parseTargets', () => {
  it('maps active targets', () => {
    const data = {
      activeTargets: [
        {
          labels: { job: 'node', instance: 'h1:9100' },
          scrapePool: 'node',
          scrapeUrl: 'http://h1:9100/metrics',
          lastError: '',
          lastScrape: '2024-01-02T03:04:05.123456789Z',
          health: 'up',
        },
        {
          labels: { instance: 'h2:9100' },
          scrapePool: 'pool',
          scrapeUrl: 'http://h2:9100/metrics',
          lastError: 'connection refused',
          lastScrape: '0001-01-01T00:00:00Z',
          health: 'unknown',
        },
      ],
    };
    expect(parseTargets(data, 'prometheus targets')).toEqual([
      {
        job: 'node',
        instance: 'h1:9100',
        health: 'up',
        labels: { job: 'node', instance: 'h1:9100' },
        scrape_url: 'http://h1:9100/metrics',
        last_error: null,
        last_scrape: '2024-01-02T03:04:05.123Z',
      },
      {
        job: 'pool',
        instance: 'h2:9100',
        health: 'unknown',
        labels: { instance: 'h2:9100' },
        scrape_url: 'http://h2:9100/metrics',
        last_error: 'connection refused',
        last_scrape: null,
      },
    ]);
  });
});

describe('parseAlerts', () => {
  const data = {
    alerts: [
      {
        labels: { alertname: 'DiskFull', severity: 'critical' },
        annotations: { summary: 'disk' },
        state: 'firing',
        activeAt: '2024-01-02T03:04:05.5Z',
        value: '9.5e-01',
      },
      { labels: { alertname: 'Soon' }, annotations: {}, state: 'pending', activeAt: '' },
    ],
  };

  it('keeps firing alerts unless pending ones are asked for', () => {
    expect(parseAlerts(data, 'a', false)).toEqual([
      {
        name: 'DiskFull',
        state: 'firing',
        labels: { alertname: 'DiskFull', severity: 'critical' },
        annotations: { summary: 'disk' },
        active_at: '2024-01-02T03:04:05.500Z',
        value: 0.95,
      },
    ]);
    expect(parseAlerts(data, 'a', true).map((a) => a.state)).toEqual(['firing', 'pending']);
    expect(parseAlerts(data, 'a', true)[1]?.active_at).toBeNull();
  });
});

describe('small helpers', () => {
  it('reads string lists, null as empty', () => {
    expect(parseStringList(['a', 'b'], 'l')).toEqual(['a', 'b']);
    expect(parseStringList(null, 'l')).toEqual([]);
    expect(() => parseStringList([1], 'l')).toThrow(/not a list of strings/);
  });

  it('converts Unix seconds and clips text', () => {
    expect(isoFromUnix(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(clip('a\n  b')).toBe('a b');
    expect(clip('x'.repeat(300))).toHaveLength(201);
  });
});
