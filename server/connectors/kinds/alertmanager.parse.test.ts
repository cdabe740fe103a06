import { describe, expect, it } from 'vitest';
import { parseAlerts, parseSilences, parseStatus, unwrap } from './alertmanager.parse.js';

describe('alertmanager answers', () => {
  it('maps alerts, with "zero" times as null and missing parts defaulted', () => {
    expect(
      parseAlerts(
        [
          {
            fingerprint: 'abc',
            labels: { alertname: 'A', n: 1 },
            status: { state: 'suppressed', silencedBy: ['s1'], inhibitedBy: null },
            startsAt: '2024-01-01T00:00:00.5+01:00',
            endsAt: '0001-01-01T00:00:00Z',
          },
        ],
        'w',
      ),
    ).toEqual([
      {
        fingerprint: 'abc',
        name: 'A',
        status: { state: 'suppressed', silenced_by: ['s1'], inhibited_by: [] },
        labels: { alertname: 'A' },
        annotations: {},
        starts_at: '2023-12-31T23:00:00.500Z',
        ends_at: null,
        updated_at: null,
        generator_url: null,
      },
    ]);
    expect(() => parseAlerts({}, 'w')).toThrow('w: unexpected answer from Alertmanager');
    expect(() => parseAlerts([{ labels: [] }], 'w')).toThrow(/alert 0: labels/);
  });

  it('maps silences and status, never keeping the configuration', () => {
    expect(
      parseSilences([{ id: 'x', status: { state: 'expired' }, matchers: [{ name: 'a' }] }], 'w'),
    ).toEqual([
      {
        id: 'x',
        status: 'expired',
        matchers: [{ name: 'a', value: '', is_regex: false, is_equal: true }],
        starts_at: null,
        ends_at: null,
        created_by: '',
        comment: '',
      },
    ]);
    const status = parseStatus(
      { versionInfo: { version: '0.25.0' }, config: { original: 'password: hunter2' } },
      'w',
    );
    expect(status).toEqual({ version: '0.25.0', uptime: null, cluster_status: 'unknown' });
    expect(() => parseStatus({}, 'w')).toThrow(/no version/);
  });

  it('unwraps error bodies as JSON strings or text', () => {
    expect(() => unwrap(400, '"bad matcher"', 'w')).toThrow('w failed: HTTP 400: bad matcher');
    expect(() => unwrap(502, '<html>\n gateway </html>', 'w')).toThrow(
      'w failed: HTTP 502: <html> gateway </html>',
    );
    expect(() => unwrap(200, 'nope', 'w')).toThrow(/not JSON/);
    expect(unwrap(200, '[]', 'w')).toEqual([]);
  });
});
