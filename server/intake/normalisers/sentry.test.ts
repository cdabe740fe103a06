import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './sentry.js';
import {
  allFixtures,
  bodyOf,
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

const SOURCE = 'sentry';
const RECEIVED = CONTEXT.receivedAt;
const { signalsOf, first } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'event-alert-triggered-checkout-fatal.json': [
    {
      name: 'Checkout fatal errors',
      status: 'firing',
      severity: 'critical',
      service: 'checkout-api',
      resource: 'checkout-api-7f9c6d-x2k4p',
      fingerprint: '4821937765',
      started_at: '2026-03-14T08:21:09.412Z',
      ended_at: null,
      link: 'https://sentry.io/organizations/acme-shop/issues/4821937765/events/9b2d4f0c1a7e4e55b3c6d8e9f0a1b2c3/',
    },
  ],
  'issue-created-billing-worker.json': [
    {
      name: "KeyError: 'invoice_id'",
      status: 'firing',
      severity: 'warning',
      service: 'billing-worker',
      resource: null,
      fingerprint: '5120044381',
      started_at: '2026-05-02T17:45:03.118Z',
      ended_at: null,
      link: 'https://sentry.io/organizations/acme-shop/issues/5120044381/',
    },
  ],
  'issue-resolved-billing-worker.json': [
    {
      name: "KeyError: 'invoice_id'",
      status: 'resolved',
      severity: 'warning',
      service: 'billing-worker',
      resource: null,
      fingerprint: '5120044381',
      started_at: '2026-05-02T17:45:03.118Z',
      ended_at: RECEIVED,
      link: 'https://sentry.io/organizations/acme-shop/issues/5120044381/',
    },
  ],
  'metric-alert-critical-p95-latency.json': [
    {
      name: 'Search p95 latency',
      status: 'firing',
      severity: 'critical',
      service: 'search-api',
      resource: null,
      fingerprint: 'metric_alert:90211',
      started_at: '2026-06-20T03:09:00.000Z',
      ended_at: null,
      link: 'https://sentry.io/organizations/acme-shop/alerts/rules/details/318/?alert=90211',
    },
  ],
};

describe('sentry: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('keeps event tags, rule and culprit as labels', () => {
    const body = fixtures.find((f) => f.file === 'event-alert-triggered-checkout-fatal.json')?.body;
    const [s] = signalsOf(normaliser.normalise(body, CONTEXT));
    expect(s?.labels).toMatchObject({
      'tag.server_name': 'checkout-api-7f9c6d-x2k4p',
      'tag.transaction': '/v2/charges',
      rule: 'Checkout fatal errors',
      culprit: 'checkout.payments in capture_charge',
      environment: 'production',
    });
    expect(s?.summary).toBe('PaymentGatewayTimeout: upstream did not answer in 30s');
  });

  it('gives firing and resolved of the same issue the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'issue-created-billing-worker.json')),
      first(bodyOf(fixtures, 'issue-resolved-billing-worker.json')),
    );
  });

  it('gives a metric alert and its resolve the same fingerprint', () => {
    const body = fixtures.find((f) => f.file === 'metric-alert-critical-p95-latency.json')
      ?.body as {
      data: object;
    };
    const critical = signalsOf(normaliser.normalise(body, CONTEXT))[0];
    const resolved = signalsOf(normaliser.normalise({ ...body, action: 'resolved' }, CONTEXT))[0];
    expect(resolved).toMatchObject({ status: 'resolved', severity: 'unknown', ended_at: RECEIVED });
    expect(resolved?.fingerprint).toBe(critical?.fingerprint);
    const warning = signalsOf(normaliser.normalise({ ...body, action: 'warning' }, CONTEXT))[0];
    expect(warning).toMatchObject({ status: 'firing', severity: 'warning' });
  });
});

// Control messages ------------------------------------------------------------------------

describe('sentry: control messages', () => {
  const installation = {
    action: 'created',
    installation: { uuid: '3f1c2b7e-9d4a-4c1e-8b2f-6a7d5e4c3b21' },
    data: { installation: { uuid: '3f1c2b7e-9d4a-4c1e-8b2f-6a7d5e4c3b21', status: 'installed' } },
    actor: { type: 'user', id: 1, name: 'Ada' },
  };
  const issue = projectFixtures(SOURCE).find((f) => f.file === 'issue-created-billing-worker.json')
    ?.body as object;

  it('acknowledges installation hooks', () => {
    expect(normaliser.normalise(installation, CONTEXT)).toEqual({
      kind: 'control',
      reason: 'sentry installation created',
    });
    const ctx = { ...CONTEXT, headers: { 'sentry-hook-resource': 'installation' } };
    expect(normaliser.normalise({ ...installation, action: 'deleted' }, ctx)).toEqual({
      kind: 'control',
      reason: 'sentry installation deleted',
    });
  });

  it('treats assigned, ignored and archived issues as updates', () => {
    for (const action of ['assigned', 'ignored', 'archived']) {
      expect(normaliser.normalise({ ...issue, action }, CONTEXT)).toEqual({
        kind: 'control',
        reason: `sentry issue ${action} is an update, not a state change`,
      });
    }
  });

  it('acknowledges resources that are not alerts (header)', () => {
    const ctx = { ...CONTEXT, headers: { 'sentry-hook-resource': 'comment' } };
    expect(normaliser.normalise({ action: 'created', data: { comment: 'hi' } }, ctx)).toEqual({
      kind: 'control',
      reason: 'sentry comment webhook is not an alert',
    });
  });

  it('follows the Sentry-Hook-Resource header over the shape', () => {
    const ctx = { ...CONTEXT, headers: { 'sentry-hook-resource': 'issue' } };
    expect(() => normaliser.normalise({ action: 'triggered', data: { event: {} } }, ctx)).toThrow(
      NotReadableError,
    );
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'docs-issue-alert-event_alert-triggered.json': {
    count: 1,
    signals: [
      {
        name: 'Very Important Alert Rule!',
        status: 'firing',
        severity: 'high',
        // The slug from event.url (/projects/test-org/front-end/events/…), not the numeric id.
        service: 'front-end',
        resource: null,
        fingerprint: '1117540176',
      },
    ],
  },
  'docs-metric-alert-resolved.json': {
    count: 1,
    signals: [
      {
        name: 'Too many errors',
        status: 'resolved',
        severity: 'unknown',
        service: 'bar',
        resource: null,
        fingerprint: 'metric_alert:4',
      },
    ],
  },
  'zulip-issue-resolved.json': {
    count: 1,
    signals: [
      {
        name: 'Exception: program has entered an invalid state.',
        status: 'resolved',
        severity: 'high',
        service: 'zulip-integration-testing',
        resource: null,
        fingerprint: '1638821441',
      },
    ],
  },
};

describe.runIf(hasShared)('sentry: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('ends a resolved issue and metric alert at receive time (the bodies carry no end)', () => {
    for (const file of ['zulip-issue-resolved.json', 'docs-metric-alert-resolved.json']) {
      const body = fixtures.find((f) => f.file === file)?.body;
      expect(signalsOf(normaliser.normalise(body, CONTEXT))[0]?.ended_at).toBe(RECEIVED);
    }
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('sentry: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('recognises the Sentry-Hook-Resource header', () => {
    const ctx = { ...CONTEXT, headers: { 'sentry-hook-resource': 'issue' } };
    expect(normaliser.detect({ action: 'created', data: {} }, ctx)).toBe(true);
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const opsgenie = {
      action: 'Create',
      alert: { alertId: 'a1', message: 'down' },
      source: { name: 'x' },
    };
    const alertmanager = {
      version: '4',
      groupKey: '{}:{alertname="X"}',
      status: 'firing',
      alerts: [{ status: 'firing', labels: { alertname: 'X' } }],
    };
    expectNotDetected(normaliser, [opsgenie, alertmanager]);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('sentry: hostile input', () => {
  it('throws NotReadableError for bodies that are not Sentry webhooks', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { action: 'created' },
      { action: 1, data: {} },
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      { alerts: 'no' },
      { action: 'created', data: nested('issue', 10_000, {}) },
      { action: 'triggered', data: { triggered_rule: 'r', event: { tags: deepArray(100_000) } } },
      { action: 'critical', data: { metric_alert: nested('alert_rule', 10_000, 'x') } },
      { action: 'created', data: { issue: { id: 1, title: 'x'.repeat(5_000_000) } } },
    ];
    const ctx = { ...CONTEXT, headers: { 'sentry-hook-resource': 'event_alert' } };
    for (const body of bodies) {
      expectSafe(normaliser, body);
      expectSafe(normaliser, body, ctx);
    }
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });

  it('caps a huge title', () => {
    const [s] = signalsOf(
      normaliser.normalise(
        { action: 'created', data: { issue: { id: 1, title: 'y'.repeat(100_000) } } },
        CONTEXT,
      ),
    );
    expect(s?.name.length).toBeLessThanOrEqual(500);
    expect(s?.summary.length).toBeLessThanOrEqual(2000);
  });
});
