import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './alertmanager.js';
import {
  allFixtures,
  bodyOf,
  core,
  DEEP_SWEEP,
  expectFixturesNotDetected,
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
import { hashOf } from './read.js';
import {
  CONTEXT,
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'alertmanager';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

// Project fixtures -----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'checkout-latency-batch-mixed.json': [
    {
      name: 'CheckoutHighLatency',
      status: 'firing',
      severity: 'critical',
      service: 'checkout-api',
      resource: 'checkout-api-6d8f9c7b5-x2kqj',
      fingerprint: 'b41e0c6f2a9d8e17',
      started_at: '2026-03-14T08:40:05.100Z',
      ended_at: null,
      link: 'https://prometheus.acme.internal/graph?g0.expr=checkout_p99',
    },
    {
      name: 'CheckoutHighLatency',
      status: 'resolved',
      severity: 'critical',
      service: 'checkout-api',
      resource: 'checkout-api-6d8f9c7b5-9wzlm',
      fingerprint: 'e3a95d07c1f4b268',
      started_at: '2026-03-14T08:40:05.100Z',
      ended_at: '2026-03-14T08:55:00.000Z',
      link: 'https://prometheus.acme.internal/graph?g0.expr=checkout_p99',
    },
  ],
  'disk-almost-full-firing.json': [
    {
      name: 'NodeFilesystemAlmostFull',
      status: 'firing',
      severity: 'warning',
      service: 'node-exporter',
      resource: 'db-03.prod.acme.internal:9100',
      fingerprint: '7d0c2a4e91b3f5a8',
      started_at: '2026-03-14T02:11:40.512Z',
      ended_at: null,
      link: 'https://prometheus.acme.internal/graph?g0.expr=node_filesystem_avail_bytes%7Bmountpoint%3D%22%2Fvar%2Flib%2Fpostgresql%22%7D&g0.tab=1',
    },
  ],
  'disk-almost-full-resolved.json': [
    {
      name: 'NodeFilesystemAlmostFull',
      status: 'resolved',
      severity: 'warning',
      service: 'node-exporter',
      resource: 'db-03.prod.acme.internal:9100',
      fingerprint: '7d0c2a4e91b3f5a8',
      started_at: '2026-03-14T02:11:40.512Z',
      ended_at: '2026-03-14T03:02:10.001Z',
      link: 'https://prometheus.acme.internal/graph?g0.expr=node_filesystem_avail_bytes%7Bmountpoint%3D%22%2Fvar%2Flib%2Fpostgresql%22%7D&g0.tab=1',
    },
  ],
  // v3 sends no fingerprint: the sorted label set is hashed; the empty generatorURL falls
  // back to externalURL; severity "page" reads as critical; job stands in for the service.
  'v3-no-fingerprint-firing.json': [
    {
      name: 'RedisDown',
      status: 'firing',
      severity: 'critical',
      service: 'redis',
      resource: 'cache-11:9121',
      fingerprint: hashOf(
        'alertmanager',
        'alertname=RedisDown',
        'instance=cache-11:9121',
        'job=redis',
        'severity=page',
      ),
      started_at: '2026-02-02T22:03:00.000Z',
      ended_at: null,
      link: 'http://am-legacy.acme.internal:9093',
    },
  ],
};

describe('alertmanager: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives firing and resolved of the same alert the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'disk-almost-full-firing.json')),
      first(bodyOf(fixtures, 'disk-almost-full-resolved.json')),
    );
  });

  it('hashes the same label set to the same fingerprint when firing and resolved', () => {
    const body = bodyOf(fixtures, 'v3-no-fingerprint-firing.json') as { alerts: object[] };
    const alert = { ...body.alerts[0], status: 'resolved', endsAt: '2026-02-02T22:40:00Z' };
    const [firing] = signalsOf(run(body));
    const [resolved] = signalsOf(run({ ...body, status: 'resolved', alerts: [alert] }));
    expect(resolved).toMatchObject({ status: 'resolved', ended_at: '2026-02-02T22:40:00.000Z' });
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });

  it('keeps labels, common labels, annotations (prefixed), receiver and group key', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'disk-almost-full-firing.json')));
    expect(s?.labels).toEqual({
      receiver: 'incident-intake',
      groupKey: '{}:{alertname="NodeFilesystemAlmostFull"}',
      alertname: 'NodeFilesystemAlmostFull',
      device: '/dev/nvme1n1p1',
      instance: 'db-03.prod.acme.internal:9100',
      job: 'node-exporter',
      mountpoint: '/var/lib/postgresql',
      severity: 'warning',
      team: 'storage',
      'annotation.summary': 'Filesystem /var/lib/postgresql on db-03 is 91% full',
      'annotation.description': 'Less than 9% space left on /dev/nvme1n1p1 for 15m.',
      'annotation.runbook_url': 'https://runbooks.acme.internal/node/filesystem-almost-full',
    });
    expect(s?.summary).toBe('Filesystem /var/lib/postgresql on db-03 is 91% full');
    expect(s?.source).toBe('alertmanager');
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'alerta-v3-legacy-firing.json': [
    {
      name: 'failedConnect',
      status: 'firing',
      severity: 'critical',
      service: 'System',
      resource: 'host2',
      fingerprint: hashOf(
        'alertmanager',
        '__name__=ping_success',
        'alertname=failedConnect',
        'environment=Production',
        'instance=host2',
        'job=pinger',
        'monitor=testlab',
        'service=System',
        'severity=critical',
        'timeout=600',
      ),
    },
  ],
  'alerta-v4-firing-severity-in-annotations.json': [
    {
      name: 'thing_dead',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: null,
      fingerprint: hashOf('alertmanager', 'alertname=thing_dead', 'severity=critical'),
    },
  ],
  'oncall-batch-firing-2-alerts.json': [
    {
      name: 'InstanceDown',
      status: 'firing',
      severity: 'critical',
      service: 'node',
      resource: 'localhost:8081',
      fingerprint: 'f404ecabc8dd5cd7',
    },
    {
      name: 'InstanceDown',
      status: 'firing',
      severity: 'critical',
      service: 'node',
      resource: 'localhost:8082',
      fingerprint: 'f8f08d4e32c61a9d',
    },
  ],
  'oncall-heartbeat-restored-resolved.json': [
    {
      name: 'OnCallHeartBeatMissing',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: 'fingerprint',
    },
  ],
  'oncall-legacy-single-firing.json': [
    {
      name: 'TestAlert',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: null,
      fingerprint: hashOf(
        'alertmanager',
        'alertname=TestAlert',
        'region=eu-1',
        'severity=critical',
      ),
    },
  ],
  'zulip-batch-firing-2-alerts.json': [
    {
      name: 'High CPU Temperature',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: 'andromeda',
      fingerprint: 'a1bc48475b20e73d',
    },
    {
      name: 'High CPU Temperature',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: 'andromeda',
      fingerprint: 'c2ea85182f28cbd9',
    },
  ],
};

describe.runIf(hasShared)('alertmanager: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

  it('reads empty startsAt/endsAt (OnCall) as the receive time', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'oncall-heartbeat-restored-resolved.json')));
    expect(s).toMatchObject({ started_at: RECEIVED, ended_at: RECEIVED, link: null });
  });

  it('reads a +03:00 offset and the 0001-01-01 sentinel', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'alerta-v3-legacy-firing.json')));
    expect(s).toMatchObject({ started_at: '2016-08-01T10:27:08.008Z', ended_at: null });
  });
});

// Detection ------------------------------------------------------------------------------

describe('alertmanager: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    expectNotDetected(normaliser, [null, {}, [], 'alerts', { alerts: [] }, { groupKey: '{}:{}' }]);
  });

  it('is false for Grafana groups (orgId, version "1" or Grafana-only alert keys)', () => {
    expectFixturesNotDetected(normaliser, projectFixtures('grafana'));
    const am = bodyOf(projectFixtures(SOURCE), 'disk-almost-full-firing.json') as {
      alerts: object[];
    };
    const valued = { ...am, alerts: [{ ...am.alerts[0], valueString: '[ var=A value=1 ]' }] };
    expectNotDetected(normaliser, [{ ...am, orgId: 1 }, { ...am, version: '1' }, valued]);
  });

  it('is false for a PagerDuty v3 event and an Opsgenie alert', () => {
    const pagerduty = {
      event: { event_type: 'incident.triggered', resource_type: 'incident', data: { id: 'P1' } },
    };
    const opsgenie = { action: 'Create', alert: { alertId: 'a-1', message: 'm' } };
    expectNotDetected(normaliser, [pagerduty, opsgenie]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('alertmanager: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
  });

  it('refuses bodies that are not alert groups', () => {
    expect(() => run(null)).toThrow(NotReadableError);
    expect(() => run({ alerts: 'no' })).toThrow(NotReadableError);
    expect(() => run({ alerts: [42] })).toThrow(NotReadableError);
    expect(() => run({ alerts: [{ status: 'firing', labels: {} }] })).toThrow(/alertname/);
    expect(() => run({ alerts: [{ status: 'pending', labels: { alertname: 'A' } }] })).toThrow(
      NotReadableError,
    );
  });

  it('reads an empty batch as no signals, and a missing alert status from the group', () => {
    expect(run({ alerts: [], groupKey: '{}:{}' })).toEqual({ kind: 'signals', signals: [] });
    const [s] = signalsOf(run({ status: 'resolved', alerts: [{ labels: { alertname: 'A' } }] }));
    expect(s).toMatchObject({ status: 'resolved', ended_at: RECEIVED, started_at: RECEIVED });
  });

  it('hashes an overlong fingerprint and drops links that are not http(s)', () => {
    const [s] = signalsOf(
      run({
        alerts: [
          {
            status: 'firing',
            labels: { alertname: 'A' },
            fingerprint: 'f'.repeat(10_000),
            generatorURL: 'javascript:alert(1)',
          },
        ],
        externalURL: 'file:///etc/passwd',
      }),
    );
    expect(s?.fingerprint).toBe(hashOf('alertmanager', 'id', 'f'.repeat(10_000)));
    expect(s?.link).toBeNull();
  });
});
