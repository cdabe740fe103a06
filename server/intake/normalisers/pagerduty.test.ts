import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './pagerduty.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'pagerduty';
const RECEIVED = CONTEXT.receivedAt;

type Core = Pick<Signal, 'name' | 'status' | 'severity' | 'service' | 'resource' | 'fingerprint'>;
type Fields = Core & Pick<Signal, 'started_at' | 'ended_at' | 'link'>;
type Want<T> = readonly T[] | { readonly control: string };

const core = (s: Signal): Core => ({
  name: s.name,
  status: s.status,
  severity: s.severity,
  service: s.service,
  resource: s.resource,
  fingerprint: s.fingerprint,
});
const fields = (s: Signal): Fields => ({
  ...core(s),
  started_at: s.started_at,
  ended_at: s.ended_at,
  link: s.link,
});

const run = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);

/** The signals of a result, each passing the intake's shape check. */
function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

function expectWanted<T>(r: NormaliseResult, want: Want<T> | undefined, pick: (s: Signal) => T) {
  if (want === undefined) throw new Error('no expectation for this fixture');
  if ('control' in want) expect(r).toEqual({ kind: 'control', reason: want.control });
  else expect(signalsOf(r).map(pick)).toEqual(want);
}

function bodyOf(fixtures: readonly Fixture[], file: string): unknown {
  const f = fixtures.find((x) => x.file === file);
  if (f === undefined) throw new Error(`no fixture ${file}`);
  return f.body;
}

/** Either a result whose signals pass the intake's shape check, or NotReadableError. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  let r: NormaliseResult;
  try {
    r = run(body);
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
    return;
  }
  if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  else expect(typeof r.reason).toBe('string');
}

function nested(levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

const HOSTILE: unknown[] = [
  null,
  42,
  'x',
  '',
  true,
  [],
  {},
  [{}],
  { alerts: 'no' },
  { alerts: [null, 1, 'x', []] },
  nested(100_000, 1),
  deepArray(100_000),
  'x'.repeat(5_000_000),
  { x: 'y'.repeat(5_000_000) },
];

/** Wrong types put at every path of a valid body. */
const WRONG: unknown[] = [
  null,
  42,
  -1,
  'x',
  '',
  true,
  [],
  {},
  [null],
  'x'.repeat(100_000),
  nested(20_000, 'x'),
  deepArray(20_000),
];

type Path = readonly (string | number)[];

/** Every path of a body to depth 6 (the first 3 elements of arrays). */
function pathsOf(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length >= 6 || typeof v !== 'object' || v === null) return out;
  const entries: [string | number, unknown][] = Array.isArray(v)
    ? v.slice(0, 3).map((x: unknown, i) => [i, x])
    : Object.entries(v);
  for (const [k, x] of entries) {
    const p = [...prefix, k];
    out.push(p);
    pathsOf(x, p, out);
  }
  return out;
}

/** A copy of body with the value at path replaced. */
function replaced(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body);
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path.at(-1);
  if (last !== undefined) cur[last] = value;
  return copy;
}

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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), PROJECT[file], fields);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('gives triggered and resolved of the same incident the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'v3-incident-triggered.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'v3-incident-resolved.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), SHARED[file], core);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

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
    for (const body of [
      null,
      {},
      [],
      { event: {} },
      { messages: [] },
      { messages: [{ type: 'x' }] },
    ]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for a Datadog, an Opsgenie and a Suricata body', () => {
    const datadog = { event_type: 'query_alert_monitor', org_id: '1', date: '1', title: 't' };
    const opsgenie = { action: 'Create', alert: { alertId: 'a-1', message: 'm' } };
    const suricata = { event_type: 'alert', src_ip: '10.0.0.1', dest_ip: '10.0.0.2' };
    for (const body of [datadog, opsgenie, suricata]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });
});

// Hostile input --------------------------------------------------------------------------

describe('pagerduty: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
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
