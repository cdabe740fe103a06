import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './pagerduty.js';
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

const SOURCE = 'pagerduty';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

// Project fixtures -----------------------------------------------------------------------

const INCIDENT = 'https://acme-ops.pagerduty.com/incidents/Q3T8KX0LMN2ZPA';

const PROJECT: Record<string, Want<Fields>> = {
  // Priority P2 → high; PagerDuty names no host, so the service is the resource.
  'v3-incident-triggered.json': [
    {
      name: 'Invoice worker stalled for 15 minutes',
      status: 'firing',
      severity: 'high',
      service: 'Billing API',
      resource: 'Billing API',
      fingerprint: 'Q3T8KX0LMN2ZPA',
      started_at: '2026-05-11T22:04:13.000Z',
      ended_at: null,
      link: INCIDENT,
    },
  ],
  'v3-incident-resolved.json': [
    {
      name: 'Invoice worker stalled for 15 minutes',
      status: 'resolved',
      severity: 'high',
      service: 'Billing API',
      resource: 'Billing API',
      fingerprint: 'Q3T8KX0LMN2ZPA',
      started_at: '2026-05-11T22:04:13.000Z',
      ended_at: '2026-05-11T22:41:58.118Z',
      link: INCIDENT,
    },
  ],
  'v3-incident-annotated.json': {
    control: 'PagerDuty incident.annotated is an update, not a state change',
  },
  'v1-messages-trigger-and-resolve.json': [
    {
      name: 'Storefront 5xx rate above 3%',
      status: 'firing',
      severity: 'unknown',
      service: 'Storefront',
      resource: 'Storefront',
      fingerprint: 'PK4Z8QX',
      started_at: '2026-01-08T04:50:12.000Z',
      ended_at: null,
      link: 'https://acme-ops.pagerduty.com/incidents/PK4Z8QX',
    },
    {
      name: 'Storefront checkout timeouts',
      status: 'resolved',
      severity: 'unknown',
      service: 'Storefront',
      resource: 'Storefront',
      fingerprint: 'PM2C7TV',
      started_at: '2026-01-08T04:50:12.000Z',
      ended_at: '2026-01-08T05:20:47.000Z',
      link: 'https://acme-ops.pagerduty.com/incidents/PM2C7TV',
    },
  ],
};

describe('pagerduty: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives triggered and resolved of the same incident the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'v3-incident-triggered.json')),
      first(bodyOf(fixtures, 'v3-incident-resolved.json')),
    );
  });

  it('keeps teams, assignees, urgency, priority and the incident key as labels', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'v3-incident-triggered.json')));
    expect(s?.labels).toEqual({
      event_type: 'incident.triggered',
      status: 'triggered',
      urgency: 'high',
      priority: 'P2',
      number: '1874',
      incident_key: 'billing-api/invoice-worker-stalled',
      service_id: 'PQ7R2ZK',
      escalation_policy: 'Billing on-call',
      teams: 'Billing',
      assignees: 'Dana Okafor',
      agent: 'Billing API',
    });
  });

  it('reads acknowledged, reopened and escalated as firing; responder and status updates as control', () => {
    const body = bodyOf(fixtures, 'v3-incident-triggered.json') as { event: object };
    const as = (event_type: string) => run({ event: { ...body.event, event_type } });
    for (const t of ['incident.acknowledged', 'incident.reopened', 'incident.escalated']) {
      expect(signalsOf(as(t))[0]?.status).toBe('firing');
    }
    for (const t of ['incident.responder.added', 'incident.status_update_published']) {
      expect(as(t)).toMatchObject({ kind: 'control' });
    }
  });

  it('falls back to urgency when there is no priority', () => {
    const body = bodyOf(fixtures, 'v3-incident-triggered.json') as {
      event: { data: object };
    };
    const low = { ...body.event.data, priority: null, urgency: 'low' };
    const [s] = signalsOf(run({ event: { ...body.event, data: low } }));
    expect(s?.severity).toBe('info');
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'alerta-legacy-v1-messages-ack-and-resolve.json': [
    {
      name: '45645',
      status: 'firing',
      severity: 'unknown',
      service: 'service',
      resource: 'service',
      fingerprint: 'PIJ90N7',
    },
    {
      name: '45645',
      status: 'resolved',
      severity: 'unknown',
      service: 'service',
      resource: 'service',
      fingerprint: 'PIJ90N7',
    },
  ],
  'docs-v3-incident-priority_updated.json': [
    {
      name: 'A little bump in the road',
      status: 'firing',
      severity: 'critical',
      service: 'API Service',
      resource: 'API Service',
      fingerprint: 'PGR0VU2',
    },
  ],
  'docs-v3-service-updated-non-incident.json': {
    control: 'PagerDuty service.updated event is not about an incident',
  },
  'zulip-v3-incident-resolved.json': [
    {
      name: 'Test Incident',
      status: 'resolved',
      severity: 'high',
      service: 'pig208',
      resource: 'pig208',
      fingerprint: 'PCPZE64',
    },
  ],
  'zulip-v3-incident-triggered.json': [
    {
      name: 'Test Incident 3',
      status: 'firing',
      severity: 'high',
      service: 'pig208',
      resource: 'pig208',
      fingerprint: 'PFQZPSY',
    },
  ],
};

describe.runIf(hasShared)('pagerduty: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

  it('ends a resolved v3 incident at the event time', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'zulip-v3-incident-resolved.json')));
    expect(s).toMatchObject({
      ended_at: '2021-06-04T13:16:53.816Z',
      link: 'https://pig208.pagerduty.com/incidents/PCPZE64',
    });
  });
});

// Detection ------------------------------------------------------------------------------

describe('pagerduty: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      { event: {} },
      { messages: [] },
      { messages: [{ type: 'x' }] },
    ]);
  });

  it('is false for a Datadog, an Opsgenie and a Suricata body', () => {
    const datadog = { event_type: 'query_alert_monitor', org_id: '1', date: '1', title: 't' };
    const opsgenie = { action: 'Create', alert: { alertId: 'a-1', message: 'm' } };
    const suricata = { event_type: 'alert', src_ip: '10.0.0.1', dest_ip: '10.0.0.2' };
    expectNotDetected(normaliser, [datadog, opsgenie, suricata]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('pagerduty: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
  });

  it('refuses incident events without an id and bodies of neither version', () => {
    const event = { event_type: 'incident.triggered', resource_type: 'incident', data: {} };
    expect(() => run({ event })).toThrow(/event.data.id/);
    expect(() => run({ event: { ...event, data: 'x' } })).toThrow(NotReadableError);
    expect(() => run({ hello: 'world' })).toThrow(NotReadableError);
    expect(() => run({ messages: [42] })).toThrow(NotReadableError);
  });

  it('starts and ends an incident without times at the receive time', () => {
    const data = { id: 'PX', title: 'T' };
    const event = { event_type: 'incident.resolved', resource_type: 'incident', data };
    const [s] = signalsOf(run({ event }));
    expect(s).toMatchObject({ status: 'resolved', started_at: RECEIVED, ended_at: RECEIVED });
  });

  it('reads v1 messages that are not incident state changes as a control message', () => {
    expect(run({ messages: [{ type: 'incident.annotate', data: {} }] })).toMatchObject({
      kind: 'control',
    });
    expect(run({ messages: [] })).toEqual({ kind: 'signals', signals: [] });
  });
});
