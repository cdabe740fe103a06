import { describe, expect, it } from 'vitest';
import { normaliser } from './netdata.js';
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

const SOURCE = 'netdata';
const RECEIVED = CONTEXT.receivedAt;
const { only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'alert-clear-disk-space.json': [
    {
      name: 'disk_space_usage',
      status: 'resolved',
      // "clear" carries no severity of its own.
      severity: 'unknown',
      service: 'acme-prod',
      resource: 'disk_space._',
      fingerprint: '90f13682ea1e066f0a8f4f3c383ea170',
      started_at: '2026-04-18T04:02:10.000Z',
      ended_at: '2026-04-18T04:02:10.000Z',
      link: 'https://app.netdata.cloud/spaces/acme-prod/rooms/databases/alerts/7d1c22a4-59e8-4d7b-9e31-ae2b0c6f8d11',
    },
  ],
  'alert-critical-disk-space.json': [
    {
      name: 'disk_space_usage',
      status: 'firing',
      severity: 'critical',
      // The Netdata space.
      service: 'acme-prod',
      // Alert notifications name no host: the chart is the entity.
      resource: 'disk_space._',
      // hashOf('netdata', 'disk_space_usage', 'disk_space._', 'disk.space', 'acme-prod')
      fingerprint: '90f13682ea1e066f0a8f4f3c383ea170',
      started_at: '2026-04-18T03:12:45.000Z',
      ended_at: null,
      link: 'https://app.netdata.cloud/spaces/acme-prod/rooms/databases/alerts/7d1c22a4-59e8-4d7b-9e31-ae2b0c6f8d11',
    },
  ],
  'reachability-unreachable.json': [
    {
      name: 'Node reachability',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: 'pg-replica-3',
      // hashOf('netdata', 'reachability', 'pg-replica-3')
      fingerprint: 'ebbb3c151539cb851780f7d2f41598dd',
      // No time in a reachability body: receive time.
      started_at: RECEIVED,
      ended_at: null,
      link: 'https://app.netdata.cloud/spaces/acme-prod/rooms/all-nodes/nodes/0c3f9a8e-6a4b-4c1e-a2f7-55d9e0b1c3a2',
    },
  ],
};

describe('netdata: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives critical and clear of the same alert the same fingerprint', () => {
    expectPaired(
      only(project('alert-critical-disk-space.json')),
      only(project('alert-clear-disk-space.json')),
    );
  });

  it('keeps chart, context, class, rooms and counts as labels; the message is the summary', () => {
    const s = only(project('alert-critical-disk-space.json'));
    expect(s.labels).toMatchObject({
      chart: 'disk_space._',
      context: 'disk.space',
      family: '/',
      class: 'Utilization',
      duration: '5m 12s',
      rooms: 'Databases,All nodes',
      additional_active_warning_alerts: '3',
    });
    expect(s.summary).toBe('Disk / space usage is critical on pg-replica-3: 96.4% used');
  });

  it('resolves the node reachability when the node is reachable again', () => {
    const body = project('reachability-unreachable.json');
    const back = only({
      ...body,
      severity: 'info',
      status: { reachable: true, text: 'reachable' },
    });
    expect(back).toMatchObject({ status: 'resolved', severity: 'info', ended_at: RECEIVED });
    expect(back.fingerprint).toBe(only(body).fingerprint);
  });

  it('fires warnings as warning', () => {
    expect(
      only({ ...project('alert-critical-disk-space.json'), severity: 'warning' }).severity,
    ).toBe('warning');
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'rust-test-cloud-webhook-alert-critical.json': {
    count: 1,
    signals: [
      {
        name: 'test alert',
        status: 'firing',
        severity: 'critical',
        service: 'test space',
        resource: 'test chart',
        // hashOf('netdata', 'test alert', 'test chart', 'test context', 'test space')
        fingerprint: '31a28647f6621036c2174e82c0ad7785',
      },
    ],
  },
};

describe.runIf(hasShared)('netdata: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('reads the date, the alert URL and lower-case rooms', () => {
    const s = only(
      fixtures.find((f) => f.file === 'rust-test-cloud-webhook-alert-critical.json')?.body,
    );
    expect(s).toMatchObject({ started_at: '2024-01-01T00:00:00.000Z', link: 'http://example.com' });
    expect(s.labels['rooms']).toBe('room1');
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('netdata: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const opsgenie = {
      action: 'Create',
      alert: { alertId: 'a1', message: 'down' },
      source: { name: 'x' },
    };
    const otherSeverity = { alert: 'a', alert_url: 'https://x.example', severity: 'high' };
    expectNotDetected(normaliser, [opsgenie, otherSeverity]);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('netdata: hostile input', () => {
  it('throws NotReadableError for bodies that are not Netdata notifications', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { alert: 'a' },
      { alert: 'a', severity: 3 },
      { alert: { name: 'a' }, severity: 'critical' },
      { status: { reachable: false } },
      { status: { reachable: 'no' }, host: 'h' },
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      {
        alert: 'a',
        severity: 'critical',
        rooms: nested('r', 10_000, {}),
        chart: nested('c', 10_000, 'x'),
      },
      { alert: 'a', severity: 'critical', Rooms: deepArray(100_000), class: deepArray(100_000) },
      {
        alert: 'x'.repeat(5_000_000),
        severity: 'warning',
        message: 'y'.repeat(5_000_000),
        alert_url: 'z'.repeat(100_000),
      },
      { alert: 'a', severity: 'x'.repeat(1_000_000), date: {} },
      {
        status: { reachable: true, text: nested('t', 10_000, 1) },
        host: 'h'.repeat(1_000_000),
        url: [],
      },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
