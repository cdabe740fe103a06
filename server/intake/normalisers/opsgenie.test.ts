import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './opsgenie.js';
import {
  allFixtures,
  bodyOf,
  core,
  DEEP_SWEEP,
  deepArray,
  expectNotDetected,
  expectPaired,
  expectSafe,
  fields,
  fixtureTests,
  hostileBodies,
  hostileSweep,
  readerFor,
  type Core,
  type Fields,
  type Want,
} from '../../testing/intake/normaliser-harness.js';
import {
  CONTEXT,
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'opsgenie';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

// Project fixtures -----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  // createdAt is epoch ms; the body names no Opsgenie domain, so there is no link.
  'create-p1.json': [
    {
      name: 'Kafka consumer lag above 50k on orders-ingest',
      status: 'firing',
      severity: 'critical',
      service: 'Data Platform',
      resource: 'kafka-broker-3',
      fingerprint: 'orders-ingest-consumer-lag',
      started_at: '2025-05-13T07:06:40.111Z',
      ended_at: null,
      link: null,
    },
  ],
  // updatedAt is epoch ns.
  'close.json': [
    {
      name: 'Kafka consumer lag above 50k on orders-ingest',
      status: 'resolved',
      severity: 'critical',
      service: 'Data Platform',
      resource: 'kafka-broker-3',
      fingerprint: 'orders-ingest-consumer-lag',
      started_at: '2025-05-13T07:06:40.111Z',
      ended_at: '2025-05-13T07:51:53.456Z',
      link: null,
    },
  ],
  'add-note.json': { control: 'Opsgenie AddNote is an update, not a state change' },
};

describe('opsgenie: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives Create and Close of the same alert the same fingerprint', () => {
    expectPaired(first(bodyOf(fixtures, 'create-p1.json')), first(bodyOf(fixtures, 'close.json')));
  });

  it('maps every action: UnAcknowledge fires, Delete resolves, the rest are control', () => {
    const body = bodyOf(fixtures, 'create-p1.json') as object;
    const as = (action: string) => run({ ...body, action });
    expect(signalsOf(as('UnAcknowledge'))[0]?.status).toBe('firing');
    expect(signalsOf(as('Delete'))[0]?.status).toBe('resolved');
    for (const action of ['Acknowledge', 'AddTags', 'AssignOwnership', 'Escalate', 'Snooze']) {
      expect(as(action)).toEqual({
        kind: 'control',
        reason: `Opsgenie ${action} is an update, not a state change`,
      });
    }
  });

  it('keeps tags, teams, details and ids as labels', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'create-p1.json')));
    expect(s?.labels).toEqual({
      action: 'Create',
      alertId: '9b4f1e2c-7a3d-4c58-b0e6-2d91f8a7c345-1747120000111',
      tinyId: '4821',
      alias: 'orders-ingest-consumer-lag',
      source: 'Prometheus',
      entity: 'kafka-broker-3',
      priority: 'P1',
      username: 'System',
      integrationName: 'Intake webhook',
      tags: 'kafka,orders,env:prod',
      teams: 'Data Platform',
      'details.cluster': 'kafka-prod-eu',
      'details.consumer_group': 'orders-ingest',
    });
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'zulip-close.json': [
    {
      name: 'test alert',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: 'aliastest',
    },
  ],
  // Numeric priority 3 reads as P3 → warning.
  'zulip-create.json': [
    {
      name: 'another alert',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'Server',
      fingerprint: 'alert-alias',
    },
  ],
};

describe.runIf(hasShared)('opsgenie: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

  it('reads createdAt (ms) and the nanosecond updatedAt of a Close', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'zulip-close.json')));
    expect(s).toMatchObject({
      started_at: '2015-01-05T10:03:11.104Z',
      ended_at: '2015-01-05T10:06:14.669Z',
    });
  });
});

// Detection ------------------------------------------------------------------------------

describe('opsgenie: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      { action: 'Create' },
      { action: 'Create', alert: {} },
    ]);
  });

  it('is false for a Sentry issue hook and a PagerDuty v3 event', () => {
    const sentry = { action: 'created', installation: { uuid: 'u' }, data: { issue: { id: '1' } } };
    const pagerduty = { event: { event_type: 'incident.triggered', resource_type: 'incident' } };
    expectNotDetected(normaliser, [sentry, pagerduty]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('opsgenie: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
  });

  it('refuses a body without action or alert id', () => {
    expect(() => run({ alert: { alertId: 'a' } })).toThrow(/action/);
    expect(() => run({ action: 'Create', alert: 'x' })).toThrow(NotReadableError);
    expect(() => run({ action: 'Create', alert: {} })).toThrow(/alertId/);
  });

  it('names an alert without message by its alias or id, and survives deep details', () => {
    const [s] = signalsOf(
      run({ action: 'Create', alert: { alertId: 'a-1', details: { x: deepArray(50_000) } } }),
    );
    expect(s).toMatchObject({ name: 'a-1', fingerprint: 'a-1', started_at: RECEIVED });
  });
});
