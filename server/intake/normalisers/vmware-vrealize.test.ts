import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './vmware-vrealize.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'vmware-vrealize';
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
  'alert-active-critical.json': [
    {
      name: 'Virtual machine has memory contention caused by swap wait and high disk read latency',
      status: 'firing',
      severity: 'critical',
      // resourceKind / adapterKind are kinds of object, not a service: kept as labels.
      service: null,
      resource: 'erp-db-01',
      fingerprint: 'f27c9d10-3b58-4e6a-8c1f-0d9e2a7b4c65',
      started_at: '2026-05-21T11:00:21.834Z',
      // cancelDate is set on an active alert too: not an end.
      ended_at: null,
      link: null,
    },
  ],
  'alert-canceled.json': [
    {
      name: 'Virtual machine has memory contention caused by swap wait and high disk read latency',
      status: 'resolved',
      severity: 'critical',
      service: null,
      resource: 'erp-db-01',
      fingerprint: 'f27c9d10-3b58-4e6a-8c1f-0d9e2a7b4c65',
      started_at: '2026-05-21T11:00:21.834Z',
      ended_at: '2026-05-21T12:01:33.112Z',
      link: null,
    },
  ],
  'alert-updated-immediate-no-name.json': [
    {
      // No alertName: the subtype names it.
      name: 'ALERT_SUBTYPE_CAPACITY_PROBLEM',
      status: 'firing',
      severity: 'high',
      service: null,
      resource: 'ds-vsan-cluster-b',
      fingerprint: '0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d',
      started_at: '2026-05-21T22:30:08.015Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('vmware-vrealize: project fixtures', () => {
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

  it('gives ACTIVE and CANCELED of the same alert the same fingerprint', () => {
    const active = only(project('alert-active-critical.json'));
    const canceled = only(project('alert-canceled.json'));
    expect([active.status, canceled.status]).toEqual(['firing', 'resolved']);
    expect(canceled.fingerprint).toBe(active.fingerprint);
  });

  it('keeps type, subtype, kinds and badges as labels; info is the summary', () => {
    const s = only(project('alert-active-critical.json'));
    expect(s.labels).toMatchObject({
      type: 'ALERT_TYPE_VIRTUALIZATION_PROBLEM',
      subType: 'ALERT_SUBTYPE_PERFORMANCE_PROBLEM',
      criticality: 'ALERT_CRITICALITY_LEVEL_CRITICAL',
      resourceId: 'b1e3f0a2-7c44-4d8e-9f21-6a0c5d3e8b77',
      resourceKind: 'VirtualMachine',
      adapterKind: 'VMWARE',
      Health: '4.0',
      updateDate: '2026-05-21T11:00:21.834Z',
    });
    expect(s.summary).toBe(
      'Virtual machine has memory contention caused by swap wait and high disk read latency triggered by: Guest|Swap In rate is above threshold',
    );
  });

  it('maps every criticality', () => {
    const body = project('alert-active-critical.json');
    const of = (criticality: string) => only({ ...body, criticality }).severity;
    expect(
      ['CRITICAL', 'IMMEDIATE', 'WARNING', 'INFO', 'NONE'].map((c) =>
        of(`ALERT_CRITICALITY_LEVEL_${c}`),
      ),
    ).toEqual(['critical', 'high', 'warning', 'info', 'unknown']);
  });

  it('ends a canceled alert at the update time, else receive time, when cancelDate is missing', () => {
    const body = project('alert-canceled.json');
    expect(only({ ...body, cancelDate: null }).ended_at).toBe('2026-05-21T12:01:33.112Z');
    expect(only({ ...body, cancelDate: null, updateDate: null }).ended_at).toBe(RECEIVED);
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'alerta-vrops-alert-active.json': {
    count: 1,
    signals: [
      {
        name: 'ALERT_SUBTYPE_AVAILABILITY_PROBLEM',
        status: 'firing',
        severity: 'warning',
        service: null,
        resource: 'sample-object-name',
        fingerprint: 'sample-alert-uuid',
      },
    ],
  },
};

describe.runIf(hasShared)('vmware-vrealize: shared fixtures', () => {
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

  it('starts at startDate (epoch ms) and ignores cancelDate on an active alert', () => {
    const s = only(fixtures.find((f) => f.file === 'alerta-vrops-alert-active.json')?.body);
    expect(s).toMatchObject({
      started_at: '2013-05-28T16:09:06.267Z',
      ended_at: null,
      summary: 'sample-info',
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

// Detection -------------------------------------------------------------------------------

describe('vmware-vrealize: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const panther = {
      id: 'AWS.Root.Login',
      alertId: '6d9c2f1e8a7b',
      name: 'Root login',
      type: 'RULE',
      severity: 'HIGH',
      createdAt: '2026-01-01T00:00:00Z',
    };
    expect(normaliser.detect(panther, CONTEXT)).toBe(false);
  });

  it('answers to the vrealize and vrops aliases', () => {
    expect(normaliser.aliases).toEqual(expect.arrayContaining(['vrealize', 'vrops']));
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('vmware-vrealize: hostile input', () => {
  it('throws NotReadableError for bodies that are not vROps notifications', () => {
    for (const body of [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { alertId: 'a', name: 'Root login', type: 'RULE', severity: 'HIGH' },
      { alertId: 'a', criticality: 'ALERT_CRITICALITY_LEVEL_INFO' },
      { alertId: {}, criticality: 'ALERT_CRITICALITY_LEVEL_INFO', alertName: 'n' },
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
  });

  it('never throws anything but NotReadableError', () => {
    const base = { alertId: 'a', criticality: 'ALERT_CRITICALITY_LEVEL_INFO', alertName: 'n' };
    const bodies: unknown[] = [
      { ...base, info: nested('i', 10_000, {}), resourceName: nested('r', 10_000, 'x') },
      { ...base, type: deepArray(100_000), Risk: deepArray(100_000) },
      {
        ...base,
        alertId: 'x'.repeat(1_000_000),
        alertName: 'y'.repeat(5_000_000),
        info: 'z'.repeat(5_000_000),
      },
      { ...base, status: 'CANCELED', startDate: 'soon', cancelDate: {}, updateDate: -1 },
      { ...base, status: 42, criticality: 'x'.repeat(1_000_000) },
    ];
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
