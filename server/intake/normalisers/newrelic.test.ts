import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './newrelic.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'newrelic';

type Fields = Pick<
  Signal,
  | 'name'
  | 'status'
  | 'severity'
  | 'service'
  | 'resource'
  | 'fingerprint'
  | 'started_at'
  | 'ended_at'
  | 'link'
>;
type Core = Pick<Signal, 'name' | 'status' | 'severity' | 'service' | 'resource' | 'fingerprint'>;
type Control = { readonly control: string };

const fields = (s: Signal): Fields => ({
  name: s.name,
  status: s.status,
  severity: s.severity,
  service: s.service,
  resource: s.resource,
  fingerprint: s.fingerprint,
  started_at: s.started_at,
  ended_at: s.ended_at,
  link: s.link,
});
const core = ({ name, status, severity, service, resource, fingerprint }: Signal): Core => ({
  name,
  status,
  severity,
  service,
  resource,
  fingerprint,
});

function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

const bodyOf = (file: string): unknown =>
  projectFixtures(SOURCE).find((f) => f.file === file)?.body;
const one = (body: unknown): Signal | undefined =>
  signalsOf(normaliser.normalise(body, CONTEXT))[0];

/** Either a result or NotReadableError; never another exception. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  try {
    const r = normaliser.normalise(body, CONTEXT);
    if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
    else expect(typeof r.reason).toBe('string');
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
  }
}

/** Copies of body with the value at each path (to depth 3) replaced by a wrong type. */
function* mutations(body: unknown, depth = 3): Generator<unknown> {
  const WRONG: unknown[] = [null, 42, -1, '', 'x', [], {}, true, 'x'.repeat(100_000)];
  if (depth === 0 || typeof body !== 'object' || body === null) return;
  const entries = Array.isArray(body) ? body.map((v, i) => [i, v] as const) : Object.entries(body);
  for (const [k, v] of entries.slice(0, 40)) {
    const copy = (x: unknown): unknown =>
      Array.isArray(body)
        ? Object.assign([...(body as unknown[])], { [k]: x })
        : { ...body, [k]: x };
    for (const w of WRONG) yield copy(w);
    for (const m of mutations(v, depth - 1)) yield copy(m);
  }
}

function nested(key: string, levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { [key]: v };
  return v;
}

function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, readonly Fields[] | Control> = {
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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = PROJECT[file];
      const got = normaliser.normalise(body, CONTEXT);
      if (want !== undefined && 'control' in want)
        expect(got).toEqual({ kind: 'control', reason: want.control });
      else expect(signalsOf(got).map(fields)).toEqual(want);
    });
  }

  it('gives firing and resolved of the same issue or incident the same fingerprint', () => {
    for (const [firing, resolved] of [
      ['workflow-activated-high.json', 'workflow-closed.json'],
      ['legacy-open-critical.json', 'legacy-closed.json'],
    ] as const) {
      const a = one(bodyOf(firing));
      const b = one(bodyOf(resolved));
      expect([a?.status, b?.status]).toEqual(['firing', 'resolved']);
      expect(b?.fingerprint).toBe(a?.fingerprint);
    }
  });

  it('keeps workflow and target labels', () => {
    expect(one(bodyOf('workflow-activated-high.json'))?.labels).toMatchObject({
      workflow: 'Orders on-call',
      total_incidents: '2',
      is_correlated: 'true',
      priority: 'HIGH',
    });
    expect(one(bodyOf('legacy-open-critical.json'))?.labels).toMatchObject({
      'target.team': 'web',
      'target.env': 'production',
      runbook_url: 'https://wiki.acme.example/runbooks/storefront-errors',
    });
  });

  it('maps every workflow priority and state', () => {
    const body = bodyOf('workflow-activated-high.json') as object;
    const cases = [
      ['CRITICAL', 'CREATED', 'critical', 'firing'],
      ['MEDIUM', 'ACKNOWLEDGED', 'warning', 'firing'],
      ['LOW', 'ACTIVATED', 'info', 'firing'],
      ['bogus', 'CLOSED', 'unknown', 'resolved'],
    ] as const;
    for (const [priority, state, severity, status] of cases) {
      expect(one({ ...body, priority, state })).toMatchObject({ severity, status });
    }
  });
});

describe('newrelic: control messages', () => {
  it('acknowledges states that are not a state change', () => {
    expect(
      normaliser.normalise(
        { ...(bodyOf('workflow-closed.json') as object), state: 'DEACTIVATED' },
        CONTEXT,
      ),
    ).toEqual({
      kind: 'control',
      reason: 'newrelic issue state deactivated is not a state change',
    });
    expect(
      normaliser.normalise(
        { ...(bodyOf('legacy-closed.json') as object), current_state: 'muted' },
        CONTEXT,
      ),
    ).toEqual({
      kind: 'control',
      reason: 'newrelic incident state muted is not a state change',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = SHARED[file];
      const got = normaliser.normalise(body, CONTEXT);
      if (want === undefined || 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want?.control });
        return;
      }
      const signals = signalsOf(got);
      expect(signals).toHaveLength(want.count);
      expect(signals.map(core)).toEqual(want.signals);
    });
  }

  it('ends a closed issue at updatedAt', () => {
    const body = fixtures.find((f) => f.file === 'zulip-workflow-default-closed.json')?.body;
    expect(one(body)).toMatchObject({
      started_at: '2024-04-22T06:16:30.228Z',
      ended_at: '2024-04-22T06:17:37.383Z',
    });
  });

  it('does not detect the shared fixtures of other sources', () => {
    for (const other of sharedSources().filter((s) => s !== SOURCE)) {
      for (const { file, body } of sharedFixtures(other)) {
        expect(normaliser.detect(body, CONTEXT), `${other}/${file}`).toBe(false);
      }
    }
  });
});

// Detection -----------------------------------------------------------------------------

describe('newrelic: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = {
      version: '4',
      groupKey: '{}:{alertname="X"}',
      status: 'firing',
      alerts: [{ status: 'firing', labels: { alertname: 'X' } }],
    };
    expect(normaliser.detect(alertmanager, CONTEXT)).toBe(false);
    const datadog = {
      event_type: 'metric_alert_monitor',
      org: { id: 1 },
      date: '1700000000000',
      title: '[Triggered] x',
    };
    expect(normaliser.detect(datadog, CONTEXT)).toBe(false);
  });

  it('answers to its alias', () => {
    expect(normaliser.aliases).toContain('new-relic');
  });
});

// Hostile input -------------------------------------------------------------------------

describe('newrelic: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { state: 'ACTIVATED' },
      { issueUrl: 'https://x', state: 'CLOSED' },
      { current_state: 'open', condition_name: 'x' },
      { state: 1, id: 'a' },
    ];
    for (const body of bodies)
      expect(() => normaliser.normalise(body, CONTEXT)).toThrow(NotReadableError);
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
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });

  it('hashes an id too long for a fingerprint', () => {
    const s = one({ state: 'ACTIVATED', id: 'i'.repeat(600), title: 't', issueUrl: 'x' });
    expect(s?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });
});
