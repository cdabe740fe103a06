import { describe, expect, it } from 'vitest';
import { normaliser } from './riemann.js';
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
  UNREADABLE_BODIES,
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

const SOURCE = 'riemann';
const RECEIVED = CONTEXT.receivedAt;
const { only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'event-critical.json': [
    {
      name: 'redis memory used',
      status: 'firing',
      severity: 'critical',
      service: 'redis memory used',
      resource: 'cache-02.example.net',
      // hashOf('riemann', 'cache-02.example.net', 'redis memory used')
      fingerprint: 'f14072c2db9bd0bb8b9cb00ae0e2bd12',
      // time: epoch seconds with a fraction.
      started_at: '2026-04-25T07:00:00.250Z',
      ended_at: null,
      link: null,
    },
  ],
  'event-ok.json': [
    {
      name: 'redis memory used',
      status: 'resolved',
      severity: 'info',
      service: 'redis memory used',
      resource: 'cache-02.example.net',
      fingerprint: 'f14072c2db9bd0bb8b9cb00ae0e2bd12',
      started_at: '2026-04-25T07:30:00.000Z',
      ended_at: '2026-04-25T07:30:00.000Z',
      link: null,
    },
  ],
  'event-warning-iso-time-custom-attrs.json': [
    {
      name: 'http req rate 5xx',
      status: 'firing',
      severity: 'warning',
      service: 'http req rate 5xx',
      resource: 'api-07',
      // hashOf('riemann', 'api-07', 'http req rate 5xx')
      fingerprint: '01cd0cf01b45f766b2de91211402260b',
      started_at: '2026-04-25T08:31:09.482Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('riemann: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives critical and ok of the same host and service the same fingerprint', () => {
    expectPaired(only(project('event-critical.json')), only(project('event-ok.json')));
  });

  it('keeps state, metric, tags, ttl and custom attributes as labels', () => {
    const s = only(project('event-warning-iso-time-custom-attrs.json'));
    expect(s.labels).toEqual({
      state: 'warning',
      metric: '12.5',
      tags: 'api,http',
      ttl: '30',
      team: 'platform',
      environment: 'staging',
    });
    // No description: the state says what happened.
    expect(s.summary).toBe('http req rate 5xx is warning');
    expect(only(project('event-critical.json')).summary).toBe('used_memory/maxmemory above 95%');
  });

  it('fires any state but ok (expired included), with an unknown severity when not a severity word', () => {
    const body = project('event-critical.json');
    expect(only({ ...body, state: 'expired' })).toMatchObject({
      status: 'firing',
      severity: 'unknown',
    });
    expect(only({ ...body, state: 'OK' }).status).toBe('resolved');
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'alerta-event-ok.json': {
    count: 1,
    signals: [
      {
        name: 'servicejane',
        status: 'resolved',
        severity: 'info',
        service: 'servicejane',
        resource: 'hostbob',
        // hashOf('riemann', 'hostbob', 'servicejane')
        fingerprint: '227456275a7744e69cb76f167754b15d',
      },
    ],
  },
};

describe.runIf(hasShared)('riemann: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('starts and ends at receive time when the event has no time', () => {
    const s = only(fixtures.find((f) => f.file === 'alerta-event-ok.json')?.body);
    expect(s).toMatchObject({
      started_at: RECEIVED,
      ended_at: RECEIVED,
      summary: 'This is a description',
    });
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('riemann: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const checkmk = {
      what: 'SERVICE',
      notification_type: 'PROBLEM',
      host: 'h',
      service: 's',
      status: 'DOWN',
    };
    const zabbix = {
      hostname: 'db-1',
      trigger: 'Replication lag',
      status: 'PROBLEM',
      severity: 'High',
    };
    const noMetric = { host: 'h', service: 's', state: 'critical' };
    expectNotDetected(normaliser, [checkmk, zabbix, noMetric]);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('riemann: hostile input', () => {
  it('throws NotReadableError for bodies that are not Riemann events', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { host: 'h', state: 'critical', metric: 1 },
      { host: 'h', service: 's', metric: 1 },
      { host: 'h', service: ['s'], state: 'ok' },
      { host: 'h', service: 's', state: 3 },
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const base = { host: 'h', service: 's', state: 'critical', metric: 1 };
    const bodies: unknown[] = [
      { ...base, tags: deepArray(100_000), attributes: nested('a', 10_000, {}) },
      { ...base, description: nested('d', 10_000, 'x'), time: deepArray(100_000) },
      {
        ...base,
        host: 'x'.repeat(5_000_000),
        service: 'y'.repeat(5_000_000),
        description: 'z'.repeat(5_000_000),
      },
      { ...base, time: 'not a time', ttl: {}, host: 42 },
      Object.fromEntries(
        Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]).concat(Object.entries(base)),
      ),
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
