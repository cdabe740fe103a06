import { describe, expect, it } from 'vitest';
import { normaliser } from './graylog.js';
import {
  allFixtures,
  core,
  deepArray,
  expectDetected,
  expectNotDetected,
  expectNotReadable,
  expectOtherSourcesNotDetected,
  expectSafe,
  fields,
  fixtureTests,
  hostileSweep,
  nested,
  readerFor,
  SHALLOW_SWEEP,
  UNREADABLE_BODIES,
  type Core,
  type Fields,
  type Want,
  type CountedWant,
} from '../../testing/intake/normaliser-harness.js';
import {
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'graylog';
const { first, project } = readerFor(normaliser);

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'event-grouped-by-service.json': [
    {
      name: 'HTTP 5xx burst',
      status: 'firing',
      severity: 'warning',
      // The group-by field `service`.
      service: 'cart-api',
      resource: 'graylog-node-1',
      fingerprint: '65f0c1d2e3a4b5c6d7e8f901:cart-api',
      started_at: '2026-07-08T14:03:27.918Z',
      ended_at: null,
      link: null,
    },
  ],
  'event-critical-no-key.json': [
    {
      name: 'Root login from unknown network',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: 'vpn-gw-1',
      fingerprint: '66b7c8d9e0f1a2b3c4d5e6f7',
      started_at: '2026-07-09T02:47:55.004Z',
      ended_at: null,
      link: null,
    },
  ],
  'legacy-stream-alert.json': [
    {
      name: 'Kernel messages',
      status: 'firing',
      severity: 'unknown',
      service: 'Kernel messages',
      resource: 'app-node-07',
      fingerprint: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
      started_at: '2017-03-09T21:30:04.221Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('graylog: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives a repeat of the same definition and key the same fingerprint, another key another', () => {
    const body = project('event-grouped-by-service.json') as { event: object };
    const original = first(body);
    const repeat = first({
      ...body,
      event: { ...body.event, id: '01HZX9', timestamp: '2026-07-08T15:00:00.000Z' },
    });
    const other = first({ ...body, event: { ...body.event, key: 'search-api' } });
    expect(repeat?.fingerprint).toBe(original?.fingerprint);
    expect(other?.fingerprint).toBe('65f0c1d2e3a4b5c6d7e8f901:search-api');
  });

  it('keeps fields, group-by fields and the query as labels', () => {
    expect(first(project('event-grouped-by-service.json'))?.labels).toMatchObject({
      'field.service': 'cart-api',
      'field.count': '137',
      'group_by.service': 'cart-api',
      query: 'http_status:>=500',
      event_key: 'cart-api',
      backlog: '1',
    });
    expect(first(project('legacy-stream-alert.json'))?.labels).toMatchObject({
      condition_title: 'OOM killer activity',
      'condition.threshold': '10',
      matching_messages: '2',
    });
  });

  it('maps priorities 1 to 4', () => {
    const body = project('event-critical-no-key.json') as { event: object };
    const cases = [
      [1, 'info'],
      [2, 'warning'],
      [3, 'high'],
      [4, 'critical'],
      [9, 'unknown'],
    ] as const;
    for (const [priority, want] of cases) {
      expect(first({ ...body, event: { ...body.event, priority } })?.severity).toBe(want);
    }
  });

  it('hashes the stream when a legacy alert names no condition id', () => {
    const body = project('legacy-stream-alert.json') as { check_result: object };
    const s = first({ ...body, check_result: { ...body.check_result, triggered_condition: null } });
    expect(s?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'alerta-legacy-2x-stream-alert.json': {
    count: 1,
    signals: [
      {
        name: 'test',
        status: 'firing',
        severity: 'unknown',
        service: 'test',
        resource: '127.0.0.1',
        fingerprint: '5e7a9c8d-9bb1-47b6-b8db-4a3a83a25e0c',
      },
    ],
  },
  'keep-event-notification-http.json': {
    count: 1,
    signals: [
      {
        name: 'Event - 1',
        status: 'firing',
        severity: 'high',
        // Streams are ids only; no service field or group-by.
        service: null,
        resource: 'server',
        // event.key is "": the definition alone.
        fingerprint: '671a28a03696bb3801a7a9f1',
      },
    ],
  },
};

describe.runIf(hasShared)('graylog: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('graylog: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const crowdstrike = {
      metadata: { eventType: 'DetectionSummaryEvent' },
      event: { DetectId: 'x' },
    };
    const wazuh = { rule: { level: 5, id: '5710' }, agent: { id: '001' }, event: {} };
    expectNotDetected(normaliser, [alertmanager, crowdstrike, wazuh]);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('graylog: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { event: 'x' },
      { event_definition_id: 'd' },
      { event_definition_id: 'd', event: [] },
      { event: {} },
      { check_result: {} },
      { check_result: {}, stream: 'x' },
      { check_result: {}, stream: {} },
    ];
    expectNotReadable(normaliser, bodies);
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      { alerts: 'no' },
      {
        event_definition_id: 'd',
        event: { fields: nested('a', 10_000, 1), source_streams: deepArray(100_000) },
      },
      { check_result: nested('triggered_condition', 10_000, {}), stream: { title: 't' } },
      { event_definition_id: 'd'.repeat(5_000_000), event: { key: 'k'.repeat(5_000_000) } },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });
});
