import { describe, expect, it } from 'vitest';
import { normaliser } from './updown.js';
import {
  allFixtures,
  core,
  deepArray,
  expectDetected,
  expectNotDetected,
  expectNotReadable,
  expectOtherSourcesNotDetected,
  expectPaired,
  expectSafe,
  fields,
  fixtureTests,
  hostileSweep,
  nested,
  readerFor,
  SHALLOW_SWEEP_WITHOUT_EDGES,
  type Core,
  type Fields,
  type Want,
  type CountedWant,
} from '../../testing/intake/normaliser-harness.js';
import {
  CONTEXT,
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'updown';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first, only } = readerFor(normaliser);

const events = (file: string): Record<string, unknown>[] => {
  const body = projectFixtures(SOURCE).find((f) => f.file === file)?.body;
  if (!Array.isArray(body)) throw new Error(`${file} is not an array`);
  return body as Record<string, unknown>[];
};

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'batch-down-and-up.json': [
    {
      name: 'Status API',
      status: 'firing',
      // updown has no severity: a check that is down is high.
      severity: 'high',
      service: null,
      resource: 'status-api.example.com',
      fingerprint: 'updown:q7tk',
      started_at: '2026-06-03T09:11:41.000Z',
      ended_at: null,
      link: 'https://status-api.example.com/ping',
    },
    {
      // No alias: the URL names the check.
      name: 'https://docs.example.com/',
      status: 'resolved',
      severity: 'high',
      service: null,
      resource: 'docs.example.com',
      fingerprint: 'updown:b2mz',
      started_at: '2026-06-03T09:08:31.000Z',
      ended_at: '2026-06-03T09:12:52.000Z',
      link: 'https://docs.example.com/',
    },
  ],
  'check-ssl-expiration.json': [
    {
      name: 'Status API (SSL expiration)',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'status-api.example.com',
      fingerprint: 'updown:q7tk:ssl_expiration',
      started_at: '2026-06-04T00:00:12.000Z',
      ended_at: null,
      link: 'https://status-api.example.com/ping',
    },
  ],
  'check-up.json': [
    {
      name: 'Status API',
      status: 'resolved',
      severity: 'high',
      service: null,
      resource: 'status-api.example.com',
      fingerprint: 'updown:q7tk',
      started_at: '2026-06-03T09:11:41.000Z',
      ended_at: '2026-06-03T09:21:41.000Z',
      link: 'https://status-api.example.com/ping',
    },
  ],
};

describe('updown: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives check.down and check.up of the same check the same fingerprint', () => {
    expectPaired(first(events('batch-down-and-up.json')), first(events('check-up.json')));
  });

  it('reads a single event object as well as the array the webhook posts', () => {
    const [event] = events('check-up.json');
    expect(signalsOf(run(event)).map(fields)).toEqual(PROJECT['check-up.json']);
  });

  it('keeps check and downtime details as labels; the description is the summary', () => {
    const [down] = signalsOf(run(events('batch-down-and-up.json')));
    expect(down?.labels).toMatchObject({
      event: 'check.down',
      'check.token': 'q7tk',
      'check.alias': 'Status API',
      'check.error': '503 Service Unavailable',
      'check.last_status': '503',
      'downtime.id': '683ebd7dc2a1f40ab3b9e6d1',
    });
    expect(down?.summary).toBe(
      'DOWN: https://status-api.example.com/ping since 09:11:41 (UTC), reason: 503 Service Unavailable',
    );
  });

  it('pairs the certificate events as their own instance of the check', () => {
    const [check] = events('check-up.json');
    const of = (event: string) => signalsOf(run({ ...check, event, downtime: undefined }))[0];
    expect(
      [of('check.ssl_invalid'), of('check.ssl_valid')].map((s) => [s?.status, s?.fingerprint]),
    ).toEqual([
      ['firing', 'updown:q7tk:ssl'],
      ['resolved', 'updown:q7tk:ssl'],
    ]);
    expect(of('check.ssl_renewed')).toMatchObject({
      status: 'resolved',
      fingerprint: 'updown:q7tk:ssl_expiration',
      ended_at: '2026-06-03T09:21:44.000Z',
    });
    expect(of('check.performance_drop')).toMatchObject({
      status: 'firing',
      severity: 'warning',
      fingerprint: 'updown:q7tk:performance',
    });
  });

  it('acknowledges unknown check events, and reads an empty batch as no signals', () => {
    const [check] = events('check-up.json');
    expect(run({ ...check, event: 'check.paused' })).toEqual({
      kind: 'control',
      reason: 'updown event is not an alert',
    });
    expect(run([{ ...check, event: 'check.paused' }])).toEqual({
      kind: 'control',
      reason: 'updown events are not alerts',
    });
    expect(run([])).toEqual({ kind: 'signals', signals: [] });
  });

  it('ends check.up at the event time when the downtime has no end, else at receive time', () => {
    const [check] = events('check-up.json');
    expect(only({ ...check, downtime: null }).ended_at).toBe('2026-06-03T09:21:44.000Z');
    expect(only({ ...check, downtime: null, time: null }).ended_at).toBe(RECEIVED);
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'pipedream-check-down.json': {
    count: 1,
    signals: [
      {
        // alias is null: the URL names the check.
        name: 'https://updown.io',
        status: 'firing',
        severity: 'high',
        service: null,
        resource: 'updown.io',
        fingerprint: 'updown:xyz0',
      },
    ],
  },
};

describe.runIf(hasShared)('updown: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('starts at downtime.started_at and reads the same event inside an array', () => {
    const body = fixtures.find((f) => f.file === 'pipedream-check-down.json')?.body;
    expect(only(body).started_at).toBe('2024-03-15T21:02:54.000Z');
    const want = SHARED['pipedream-check-down.json'];
    expect(signalsOf(run([body])).map(core)).toEqual(
      want !== undefined && 'signals' in want ? want.signals : undefined,
    );
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('updown: detect', () => {
  it('recognises every fixture of this source (arrays and single events)', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42, [null], [{ event: 'check.down' }]]);
    const datadog = {
      event_type: 'metric_alert_monitor',
      date: '1712000000000',
      org_id: '1',
      title: 'x',
    };
    const pagerduty = {
      event: { event_type: 'incident.triggered', resource_type: 'incident', data: {} },
    };
    expectNotDetected(normaliser, [datadog, pagerduty]);
  });

  it('answers to the updown-io alias', () => {
    expect(normaliser.aliases).toContain('updown-io');
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('updown: hostile input', () => {
  it('throws NotReadableError for bodies that are not updown events', () => {
    expectNotReadable(normaliser, [
      null,
      42,
      'x',
      {},
      { alerts: 'no' },
      { event: 'check.down' },
      { event: 'incident.triggered', check: {} },
      { event: 'check.down', check: {} },
      [{ event: 'check.down', check: { token: 't' } }, 'x'],
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const event = { event: 'check.down', check: { token: 't', url: 'https://a.example' } };
    const bodies: unknown[] = [
      {
        ...event,
        check: { ...event.check, custom_headers: nested('h', 10_000, {}) },
        downtime: nested('id', 10_000, 1),
      },
      {
        ...event,
        check: {
          ...event.check,
          recipients: deepArray(100_000),
          disabled_locations: deepArray(100_000),
        },
      },
      { ...event, ssl: nested('cert', 10_000, 'x') },
      {
        ...event,
        check: { token: 'x'.repeat(1_000_000), url: `https://${'y'.repeat(5_000_000)}` },
      },
      { ...event, check: { url: 'https://[::1', alias: [] }, time: {}, description: 42 },
      Array.from({ length: 5_000 }, () => event),
      [event, deepArray(100_000)],
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
