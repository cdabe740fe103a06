import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './gcp-monitoring.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'gcp-monitoring';
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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), PROJECT[file], fields);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('gives open and closed of the same incident the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'disk-saturation-open.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'disk-saturation-closed.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), SHARED[file], core);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

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
    for (const body of [null, {}, [], { incident: {} }, { incident: { incident_id: 'x' } }]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for a version 2 body and for Azure and PagerDuty bodies', () => {
    const v2 = { incident: { incident_id: '0.a', policy_name: 'p' }, version: '2.0' };
    const azure = { schemaId: 'azureMonitorCommonAlertSchema', data: { essentials: {} } };
    const pagerduty = { event: { event_type: 'incident.triggered', resource_type: 'incident' } };
    for (const body of [v2, azure, pagerduty]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });
});

// Hostile input --------------------------------------------------------------------------

describe('gcp-monitoring: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
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
