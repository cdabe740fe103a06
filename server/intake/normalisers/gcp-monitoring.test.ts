import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './gcp-monitoring.js';
import {
  allFixtures,
  bodyOf,
  core,
  DEEP_SWEEP,
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

const SOURCE = 'gcp-monitoring';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

// Project fixtures -----------------------------------------------------------------------

const DISK_NAME = 'Search indexer disk saturation: Disk read ops above 0.9 utilisation';
const DISK_URL =
  'https://console.cloud.google.com/monitoring/alerting/incidents/0.nq7h2k4v9xzc?project=acme-search-prod';

const PROJECT: Record<string, Want<Fields>> = {
  // policy_user_labels carry severity and service; times are epoch seconds.
  'disk-saturation-open.json': [
    {
      name: DISK_NAME,
      status: 'firing',
      severity: 'warning',
      service: 'search',
      resource: '5512093847712093841',
      fingerprint: '0.nq7h2k4v9xzc',
      started_at: '2026-06-23T08:00:00.000Z',
      ended_at: null,
      link: DISK_URL,
    },
  ],
  'disk-saturation-closed.json': [
    {
      name: DISK_NAME,
      status: 'resolved',
      severity: 'warning',
      service: 'search',
      resource: '5512093847712093841',
      fingerprint: '0.nq7h2k4v9xzc',
      started_at: '2026-06-23T08:00:00.000Z',
      ended_at: '2026-06-23T08:29:00.000Z',
      link: DISK_URL,
    },
  ],
  // Newer body with incident.severity; state "OPEN" in capitals; condition = policy name.
  'uptime-check-severity-critical.json': [
    {
      name: 'Homepage uptime',
      status: 'firing',
      severity: 'critical',
      service: 'acme-web-prod',
      resource: 'acme-web-prod www.acme.example',
      fingerprint: '0.mz3c8f1t6w2a',
      started_at: '2026-06-24T12:43:20.000Z',
      ended_at: null,
      link: 'https://console.cloud.google.com/monitoring/alerting/incidents/0.mz3c8f1t6w2a?project=acme-web-prod',
    },
  ],
};

describe('gcp-monitoring: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives open and closed of the same incident the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'disk-saturation-open.json')),
      first(bodyOf(fixtures, 'disk-saturation-closed.json')),
    );
  });

  it('keeps resource, metric, policy and user labels', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'disk-saturation-open.json')));
    expect(s?.labels).toMatchObject({
      version: '1.2',
      policy_name: 'Search indexer disk saturation',
      condition_name: 'Disk read ops above 0.9 utilisation',
      resource_display_name: 'search-indexer-3',
      observed_value: '0.93',
      threshold_value: '0.9',
      'resource.type': 'gce_instance',
      'resource.instance_id': '5512093847712093841',
      'resource.zone': 'europe-west4-b',
      'metric.type': 'compute.googleapis.com/instance/disk/read_ops_count',
      'metric.device_name': 'persistent-disk-1',
      env: 'prod',
      severity: 'warning',
      service: 'search',
    });
    expect(s?.summary).toBe(
      'Disk read operations for acme-search-prod search-indexer-3 is above the threshold of 0.9 with a value of 0.93.',
    );
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'alerta-stackdriver-v1.1-closed.json': [
    {
      name: 'Webserver Health: CPU usage',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: 'webserver-85',
      fingerprint: 'f2e08c333dc64cb09f75eaab355393bz',
    },
  ],
  'alerta-stackdriver-v1.1-open.json': [
    {
      name: 'Webserver Health: CPU usage',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: 'webserver-85',
      fingerprint: 'f2e08c333dc64cb09f75eaab355393bz',
    },
  ],
  'gist-joemiller-v1.2-open.json': [
    {
      name: 'test: GCE VM Instance - CPU usage',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: '8979287136362607111',
      fingerprint: '0.lj2va6zdkemq',
    },
  ],
  // Mock: state "OPEN", started_at 0 (→ receive time), no instance_id (→ resource_name).
  'keep-mock-v1.2-full-shape-open.json': [
    {
      name: 'projects/987654/alertPolicies/5xx-policy: 5XX Error Rate > 5%',
      status: 'firing',
      severity: 'unknown',
      service: 'prod-web-cluster',
      resource: 'projects/987654/apps/prod-web-cluster',
      fingerprint: 'prod-5xx-123',
    },
  ],
};

describe.runIf(hasShared)('gcp-monitoring: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

  it('gives open and closed of incident f2e08c33… the same fingerprint and times', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'alerta-stackdriver-v1.1-open.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'alerta-stackdriver-v1.1-closed.json')));
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
    expect(firing).toMatchObject({ started_at: '2017-07-06T19:10:14.000Z', ended_at: null });
    expect(resolved).toMatchObject({ ended_at: '2017-07-06T19:20:36.000Z' });
  });

  it('reads started_at 0 as the receive time', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'keep-mock-v1.2-full-shape-open.json')));
    expect(s?.started_at).toBe(RECEIVED);
  });
});

// Detection ------------------------------------------------------------------------------

describe('gcp-monitoring: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      { incident: {} },
      { incident: { incident_id: 'x' } },
    ]);
  });

  it('is false for a version 2 body and for Azure and PagerDuty bodies', () => {
    const v2 = { incident: { incident_id: '0.a', policy_name: 'p' }, version: '2.0' };
    const azure = { schemaId: 'azureMonitorCommonAlertSchema', data: { essentials: {} } };
    const pagerduty = { event: { event_type: 'incident.triggered', resource_type: 'incident' } };
    expectNotDetected(normaliser, [v2, azure, pagerduty]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('gcp-monitoring: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
  });

  it('refuses an incident without id, policy or a known state', () => {
    const incident = { incident_id: '0.a', policy_name: 'p', state: 'open' };
    expect(() => run({ incident: 'x' })).toThrow(NotReadableError);
    expect(() => run({ incident: { ...incident, incident_id: null } })).toThrow(/incident_id/);
    expect(() => run({ incident: { ...incident, policy_name: [] } })).toThrow(/policy_name/);
    expect(() => run({ incident: { ...incident, state: 'acknowledged' } })).toThrow(/state/);
  });

  it('ends a closed incident without ended_at at the receive time', () => {
    const [s] = signalsOf(
      run({ incident: { incident_id: '0.a', policy_name: 'p', state: 'CLOSED' } }),
    );
    expect(s).toMatchObject({ status: 'resolved', started_at: RECEIVED, ended_at: RECEIVED });
  });
});
