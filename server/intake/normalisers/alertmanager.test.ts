import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './alertmanager.js';
import { hashOf } from './read.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'alertmanager';
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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), PROJECT[file], fields);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('gives firing and resolved of the same alert the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'disk-almost-full-firing.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'disk-almost-full-resolved.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), SHARED[file], core);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

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
    for (const body of [null, {}, [], 'alerts', { alerts: [] }, { groupKey: '{}:{}' }]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for Grafana groups (orgId, version "1" or Grafana-only alert keys)', () => {
    for (const { body } of projectFixtures('grafana')) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
    const am = bodyOf(projectFixtures(SOURCE), 'disk-almost-full-firing.json') as {
      alerts: object[];
    };
    expect(normaliser.detect({ ...am, orgId: 1 }, CONTEXT)).toBe(false);
    expect(normaliser.detect({ ...am, version: '1' }, CONTEXT)).toBe(false);
    const valued = { ...am, alerts: [{ ...am.alerts[0], valueString: '[ var=A value=1 ]' }] };
    expect(normaliser.detect(valued, CONTEXT)).toBe(false);
  });

  it('is false for a PagerDuty v3 event and an Opsgenie alert', () => {
    const pagerduty = {
      event: { event_type: 'incident.triggered', resource_type: 'incident', data: { id: 'P1' } },
    };
    const opsgenie = { action: 'Create', alert: { alertId: 'a-1', message: 'm' } };
    expect(normaliser.detect(pagerduty, CONTEXT)).toBe(false);
    expect(normaliser.detect(opsgenie, CONTEXT)).toBe(false);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('alertmanager: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
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
