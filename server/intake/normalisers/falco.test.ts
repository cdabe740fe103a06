import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './falco.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'falco';

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
  'falcosidekick-critical-drop-and-execute.json': [
    {
      name: 'Drop and execute new binary in container',
      status: 'firing',
      severity: 'critical',
      service: 'storefront',
      resource: 'worker-1.k8s.internal',
      // hashOf('falco', rule, hostname, container.id)
      fingerprint: 'b3fcdbc26b89989981f4dfa126124e10',
      started_at: '2026-05-14T11:47:03.031Z',
      ended_at: null,
      link: null,
    },
  ],
  'falcosidekick-k8s-terminal-shell.json': [
    {
      name: 'Terminal shell in container',
      status: 'firing',
      severity: 'info',
      service: 'payments',
      resource: 'worker-3.k8s.internal',
      // hashOf('falco', 'Terminal shell in container', 'worker-3.k8s.internal', '3ad7d5f1c2e9')
      fingerprint: 'd2dc2d3a648a1e1eb1e0504b182b6fc7',
      started_at: '2026-05-14T10:22:31.418Z',
      ended_at: null,
      link: null,
    },
  ],
  'http-output-write-below-etc.json': [
    {
      name: 'Write below etc',
      status: 'firing',
      severity: 'high',
      // k8s.ns.name is null: no service (the event source "syscall" is not one).
      service: null,
      resource: 'build-runner-07',
      // hashOf('falco', 'Write below etc', 'build-runner-07', 'host')
      fingerprint: 'c827a9197a48af465e0eb59b4e38a9e0',
      started_at: '2026-05-14T08:05:12.700Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('falco: project fixtures', () => {
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

  it('keeps output fields (dotted keys), tags and source as labels; output is the summary', () => {
    const s = only(project('falcosidekick-k8s-terminal-shell.json'));
    expect(s.labels).toMatchObject({
      priority: 'Notice',
      source: 'syscall',
      hostname: 'worker-3.k8s.internal',
      tags: 'T1059,container,maturity_stable,mitre_execution,shell',
      uuid: '5b7a4f0e-2c91-4d36-9f1e-8a3c6d2b7e10',
      'k8s.pod.name': 'payments-api-7c9d8f6b5-xk2lp',
      'proc.tty': '34816',
      'user.uid': '0',
    });
    // evt.time (ns, past 2^53) lost digits in JSON.parse: not shown rather than shown wrong.
    expect(s.labels['evt.time']).toBeUndefined();
    expect(s.summary).toMatch(/^10:22:31\.418653275: Notice A shell was spawned/);
    // null output fields are left out.
    const host = only(project('http-output-write-below-etc.json'));
    expect(host.labels['k8s.ns.name']).toBeUndefined();
    expect(host.labels['container.id']).toBe('host');
  });
});

// Same instance ---------------------------------------------------------------------------

describe('falco: fingerprints', () => {
  it('gives the same rule in the same container one fingerprint across events', () => {
    const first = project('falcosidekick-k8s-terminal-shell.json');
    const again = {
      ...first,
      uuid: '0f9e8d7c-6b5a-4321-9876-543210fedcba',
      time: '2026-05-14T10:40:02.000000001Z',
      output: '10:40:02.000000001: Notice A shell was spawned in a container (…)',
    };
    expect(only(again).fingerprint).toBe(only(first).fingerprint);
    expect(only(again).started_at).toBe('2026-05-14T10:40:02.000Z');
  });

  it('tells containers apart, and uses the pod when there is no container id', () => {
    const first = project('falcosidekick-k8s-terminal-shell.json');
    const fieldsOf = first['output_fields'] as Record<string, unknown>;
    const other = { ...first, output_fields: { ...fieldsOf, 'container.id': 'aa11bb22cc33' } };
    expect(only(other).fingerprint).not.toBe(only(first).fingerprint);
    const noContainer = { ...first, output_fields: { ...fieldsOf, 'container.id': '<NA>' } };
    const otherPod = {
      ...first,
      output_fields: { ...fieldsOf, 'container.id': '<NA>', 'k8s.pod.name': 'payments-api-x' },
    };
    expect(only(noContainer).fingerprint).not.toBe(only(otherPod).fingerprint);
  });

  it('maps every Falco priority', () => {
    const body = project('falcosidekick-k8s-terminal-shell.json');
    const of = (priority: string) => only({ ...body, priority }).severity;
    expect(
      [
        'Emergency',
        'Alert',
        'Critical',
        'Error',
        'Warning',
        'Notice',
        'Informational',
        'Debug',
        'Loud',
      ].map(of),
    ).toEqual([
      'critical',
      'critical',
      'critical',
      'high',
      'warning',
      'info',
      'info',
      'info',
      'unknown',
    ]);
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'falcosidekick-test-input.json': {
    count: 1,
    signals: [
      {
        name: 'Test rule',
        status: 'firing',
        severity: 'info',
        // "syscalls" is the event source, not a service; no k8s.ns.name.
        service: null,
        resource: 'test-host',
        // hashOf('falco', 'Test rule', 'test-host', undefined)
        fingerprint: '18d589401b586991a2e9a943d3dc683e',
      },
    ],
  },
};

describe.runIf(hasShared)('falco: shared fixtures', () => {
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

  it('reads the time and keeps the source as a label', () => {
    const s = only(fixtures.find((f) => f.file === 'falcosidekick-test-input.json')?.body);
    expect(s.started_at).toBe('2001-01-01T01:10:00.000Z');
    expect(s.labels).toMatchObject({ source: 'syscalls', 'proc.name': 'falcosidekick' });
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

describe('falco: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const wazuh = {
      timestamp: '2026-01-01T00:00:00.000+0000',
      rule: { level: 5, id: '5710', description: 'sshd: Attempt to login' },
      agent: { id: '002', name: 'web-1' },
      full_log: 'Failed password',
    };
    expect(normaliser.detect(wazuh, CONTEXT)).toBe(false);
  });

  it('answers to the falcosidekick alias', () => {
    expect(normaliser.aliases).toContain('falcosidekick');
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('falco: hostile input', () => {
  it('throws NotReadableError for bodies that are not Falco alerts', () => {
    for (const body of [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { rule: { level: 5 }, agent: {} },
      { rule: '   ', priority: 'Notice', output: 'x' },
      { rule: 'r', priority: 3, output: 'x' },
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      { rule: 'r', priority: 'Error', output: 'o', output_fields: nested('k', 10_000, {}) },
      { rule: 'r', priority: 'Error', output: 'o', tags: deepArray(100_000) },
      { rule: 'r', priority: 'Error', output: 'o', output_fields: { 'a.b': deepArray(100_000) } },
      {
        rule: 'x'.repeat(5_000_000),
        priority: 'Error',
        output: 'y'.repeat(5_000_000),
        hostname: 'z'.repeat(1_000_000),
      },
      { rule: 'r', priority: 'Error', output: 'o', time: {}, hostname: [], output_fields: [] },
      {
        rule: 'r',
        priority: 'Error',
        output: 'o',
        output_fields: { 'evt.time': 'x', 'container.id': {} },
      },
    ];
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });

  it('caps a huge rule name and output', () => {
    const s = only({ rule: 'y'.repeat(100_000), priority: 'Error', output: 'z'.repeat(100_000) });
    expect(s.name.length).toBeLessThanOrEqual(500);
    expect(s.summary.length).toBeLessThanOrEqual(2000);
  });
});
