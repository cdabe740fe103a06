import { describe, expect, it } from 'vitest';
import { normaliser } from './newrelic.js';
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
  SHALLOW_SWEEP,
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

const SOURCE = 'newrelic';
const { first, project } = readerFor(normaliser);

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'workflow-activated-high.json': [
    {
      name: 'Orders DB CPU',
      status: 'firing',
      severity: 'high',
      service: 'Orders Platform',
      resource: 'orders-db-primary',
      fingerprint: '0b6f4c3e-2a51-4f6e-9d3c-8e7a1b2c4d5f',
      started_at: '2026-02-24T08:05:25.113Z',
      ended_at: null,
      link: 'https://radar-api.service.eu.newrelic.com/accounts/3301877/issues/0b6f4c3e-2a51-4f6e-9d3c-8e7a1b2c4d5f?notifier=WEBHOOK',
    },
  ],
  'workflow-closed.json': [
    {
      name: 'Orders DB CPU',
      status: 'resolved',
      severity: 'high',
      service: 'Orders Platform',
      resource: 'orders-db-primary',
      fingerprint: '0b6f4c3e-2a51-4f6e-9d3c-8e7a1b2c4d5f',
      started_at: '2026-02-24T08:05:25.113Z',
      ended_at: '2026-02-24T08:45:11.904Z',
      link: 'https://radar-api.service.eu.newrelic.com/accounts/3301877/issues/0b6f4c3e-2a51-4f6e-9d3c-8e7a1b2c4d5f?notifier=WEBHOOK',
    },
  ],
  'legacy-open-critical.json': [
    {
      name: 'Storefront error rate',
      status: 'firing',
      severity: 'critical',
      service: 'Storefront',
      resource: 'storefront-web',
      fingerprint: '2291043:74120555',
      started_at: '2026-01-27T09:50:41.000Z',
      ended_at: null,
      link: 'https://alerts.newrelic.com/accounts/2291043/incidents/74120555',
    },
  ],
  'legacy-closed.json': [
    {
      name: 'Storefront error rate',
      status: 'resolved',
      severity: 'critical',
      service: 'Storefront',
      resource: 'storefront-web',
      fingerprint: '2291043:74120555',
      // The legacy body has one timestamp: when the state changed.
      started_at: '2026-01-27T10:30:02.000Z',
      ended_at: '2026-01-27T10:30:02.000Z',
      link: 'https://alerts.newrelic.com/accounts/2291043/incidents/74120555',
    },
  ],
};

describe('newrelic: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives firing and resolved of the same issue or incident the same fingerprint', () => {
    for (const [firing, resolved] of [
      ['workflow-activated-high.json', 'workflow-closed.json'],
      ['legacy-open-critical.json', 'legacy-closed.json'],
    ] as const) {
      expectPaired(first(project(firing)), first(project(resolved)));
    }
  });

  it('keeps workflow and target labels', () => {
    expect(first(project('workflow-activated-high.json'))?.labels).toMatchObject({
      workflow: 'Orders on-call',
      total_incidents: '2',
      is_correlated: 'true',
      priority: 'HIGH',
    });
    expect(first(project('legacy-open-critical.json'))?.labels).toMatchObject({
      'target.team': 'web',
      'target.env': 'production',
      runbook_url: 'https://wiki.acme.example/runbooks/storefront-errors',
    });
  });

  it('maps every workflow priority and state', () => {
    const body = project('workflow-activated-high.json') as object;
    const cases = [
      ['CRITICAL', 'CREATED', 'critical', 'firing'],
      ['MEDIUM', 'ACKNOWLEDGED', 'warning', 'firing'],
      ['LOW', 'ACTIVATED', 'info', 'firing'],
      ['bogus', 'CLOSED', 'unknown', 'resolved'],
    ] as const;
    for (const [priority, state, severity, status] of cases) {
      expect(first({ ...body, priority, state })).toMatchObject({ severity, status });
    }
  });
});

describe('newrelic: control messages', () => {
  it('acknowledges states that are not a state change', () => {
    expect(
      normaliser.normalise(
        { ...(project('workflow-closed.json') as object), state: 'DEACTIVATED' },
        CONTEXT,
      ),
    ).toEqual({
      kind: 'control',
      reason: 'newrelic issue state deactivated is not a state change',
    });
    expect(
      normaliser.normalise(
        { ...(project('legacy-closed.json') as object), current_state: 'muted' },
        CONTEXT,
      ),
    ).toEqual({
      kind: 'control',
      reason: 'newrelic incident state muted is not a state change',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'alerta-legacy-v1-incident-open.json': {
    count: 1,
    signals: [
      {
        name: 'New Relic Alert - Test Condition',
        status: 'firing',
        severity: 'info',
        service: 'New Relic Alert - Test Policy',
        // targets[0].name is "".
        resource: null,
        fingerprint: '11111:0',
      },
    ],
  },
  'zulip-workflow-default-activated.json': {
    count: 1,
    signals: [
      {
        name: 'Zulip Server Low Storage',
        status: 'firing',
        severity: 'critical',
        service: 'Golden Signals',
        resource: 'zulip_app',
        fingerprint: 'c5faa7e6-7b54-402d-af79-f99601e0278c',
      },
    ],
  },
  'zulip-workflow-default-closed.json': {
    count: 1,
    signals: [
      {
        name: 'High CPU',
        status: 'resolved',
        severity: 'critical',
        service: 'Golden Signals',
        resource: 'main_app-UBUNTU',
        fingerprint: '95a9344a-2590-48ce-8d83-07e28b6d22c6',
      },
    ],
  },
};

describe.runIf(hasShared)('newrelic: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('ends a closed issue at updatedAt', () => {
    const body = fixtures.find((f) => f.file === 'zulip-workflow-default-closed.json')?.body;
    expect(first(body)).toMatchObject({
      started_at: '2024-04-22T06:16:30.228Z',
      ended_at: '2024-04-22T06:17:37.383Z',
    });
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('newrelic: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const alertmanager = {
      version: '4',
      groupKey: '{}:{alertname="X"}',
      status: 'firing',
      alerts: [{ status: 'firing', labels: { alertname: 'X' } }],
    };
    expectNotDetected(normaliser, [alertmanager]);
    const datadog = {
      event_type: 'metric_alert_monitor',
      org: { id: 1 },
      date: '1700000000000',
      title: '[Triggered] x',
    };
    expectNotDetected(normaliser, [datadog]);
  });

  it('answers to its alias', () => {
    expect(normaliser.aliases).toContain('new-relic');
  });
});

// Hostile input -------------------------------------------------------------------------

describe('newrelic: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { state: 'ACTIVATED' },
      { issueUrl: 'https://x', state: 'CLOSED' },
      { current_state: 'open', condition_name: 'x' },
      { state: 1, id: 'a' },
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
      nested('issueUrl', 10_000, 'x'),
      { issueUrl: 'x', state: 'CLOSED', id: 'a', alertConditionNames: deepArray(100_000) },
      {
        current_state: 'open',
        incident_id: 1,
        condition_name: 'c',
        targets: [nested('labels', 10_000, {})],
      },
      { state: 'ACTIVATED', id: 'x'.repeat(5_000_000), title: 'y'.repeat(5_000_000) },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });

  it('hashes an id too long for a fingerprint', () => {
    const s = first({ state: 'ACTIVATED', id: 'i'.repeat(600), title: 't', issueUrl: 'x' });
    expect(s?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });
});
