import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './netdata.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'netdata';
const RECEIVED = CONTEXT.receivedAt;

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

const read = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);

function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

function only(body: unknown): Signal {
  const [s, ...rest] = signalsOf(read(body));
  expect(rest).toHaveLength(0);
  if (s === undefined) throw new Error('no signal');
  return s;
}

/** Either a result or NotReadableError; never another exception. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  try {
    const r = read(body);
    if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
    else expect(typeof r.reason).toBe('string');
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
  }
}

/** Copies of body with the value at each path (to depth 3) replaced by a wrong type. */
function* mutations(body: unknown, depth = 3): Generator<unknown> {
  const WRONG: unknown[] = [null, 42, 'x', [], {}, true, 'x'.repeat(100_000)];
  if (depth === 0 || typeof body !== 'object' || body === null) return;
  const entries = Array.isArray(body)
    ? body.map((v: unknown, i) => [String(i), v] as const)
    : Object.entries(body);
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

const project = (file: string): Record<string, unknown> => {
  const body = projectFixtures(SOURCE).find((f) => f.file === file)?.body;
  if (typeof body !== 'object' || body === null) throw new Error(`no fixture ${file}`);
  return body as Record<string, unknown>;
};

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, readonly Fields[] | Control> = {
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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = PROJECT[file];
      const got = read(body);
      if (want !== undefined && 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want.control });
      } else expect(signalsOf(got).map(fields)).toEqual(want);
    });
  }

  it('gives critical and clear of the same alert the same fingerprint', () => {
    const critical = only(project('alert-critical-disk-space.json'));
    const clear = only(project('alert-clear-disk-space.json'));
    expect([critical.status, clear.status]).toEqual(['firing', 'resolved']);
    expect(clear.fingerprint).toBe(critical.fingerprint);
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

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = SHARED[file];
      const got = read(body);
      if (want === undefined || 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want?.control });
        return;
      }
      const signals = signalsOf(got);
      expect(signals).toHaveLength(want.count);
      expect(signals.map(core)).toEqual(want.signals);
    });
  }

  it('reads the date, the alert URL and lower-case rooms', () => {
    const s = only(
      fixtures.find((f) => f.file === 'rust-test-cloud-webhook-alert-critical.json')?.body,
    );
    expect(s).toMatchObject({ started_at: '2024-01-01T00:00:00.000Z', link: 'http://example.com' });
    expect(s.labels['rooms']).toBe('room1');
  });

  it('does not detect the shared fixtures of other sources', () => {
    for (const other of sharedSources().filter((s) => s !== SOURCE)) {
      for (const { file, body } of sharedFixtures(other)) {
        expect(normaliser.detect(body, CONTEXT), `${other}/${file}`).toBe(false);
      }
    }
  });
});

// Detection -------------------------------------------------------------------------------

describe('netdata: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const opsgenie = {
      action: 'Create',
      alert: { alertId: 'a1', message: 'down' },
      source: { name: 'x' },
    };
    const otherSeverity = { alert: 'a', alert_url: 'https://x.example', severity: 'high' };
    expect(normaliser.detect(opsgenie, CONTEXT)).toBe(false);
    expect(normaliser.detect(otherSeverity, CONTEXT)).toBe(false);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('netdata: hostile input', () => {
  it('throws NotReadableError for bodies that are not Netdata notifications', () => {
    for (const body of [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { alert: 'a' },
      { alert: 'a', severity: 3 },
      { alert: { name: 'a' }, severity: 'critical' },
      { status: { reachable: false } },
      { status: { reachable: 'no' }, host: 'h' },
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
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
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
