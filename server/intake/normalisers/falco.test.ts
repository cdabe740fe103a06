import { describe, expect, it } from 'vitest';
import { normaliser } from './falco.js';
import {
  allFixtures,
  core,
  deepArray,
  expectDetected,
  expectNotDetected,
  expectNotReadable,
  expectOtherSourcesNotDetected,
  expectSafe,
  fields,
  fixtureTests,
  hostileSweep,
  nested,
  readerFor,
  SHALLOW_SWEEP_WITHOUT_EDGES,
  UNREADABLE_BODIES,
  type Core,
  type Fields,
  type Want,
  type CountedWant,
} from '../../testing/intake/normaliser-harness.js';
import {
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'falco';
const { only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
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

  fixtureTests(normaliser, fixtures, PROJECT, fields);

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

const SHARED: Record<string, CountedWant<Core>> = {
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('reads the time and keeps the source as a label', () => {
    const s = only(fixtures.find((f) => f.file === 'falcosidekick-test-input.json')?.body);
    expect(s.started_at).toBe('2001-01-01T01:10:00.000Z');
    expect(s.labels).toMatchObject({ source: 'syscalls', 'proc.name': 'falcosidekick' });
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('falco: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const wazuh = {
      timestamp: '2026-01-01T00:00:00.000+0000',
      rule: { level: 5, id: '5710', description: 'sshd: Attempt to login' },
      agent: { id: '002', name: 'web-1' },
      full_log: 'Failed password',
    };
    expectNotDetected(normaliser, [wazuh]);
  });

  it('answers to the falcosidekick alias', () => {
    expect(normaliser.aliases).toContain('falcosidekick');
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('falco: hostile input', () => {
  it('throws NotReadableError for bodies that are not Falco alerts', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { rule: { level: 5 }, agent: {} },
      { rule: '   ', priority: 'Notice', output: 'x' },
      { rule: 'r', priority: 3, output: 'x' },
    ]);
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
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });

  it('caps a huge rule name and output', () => {
    const s = only({ rule: 'y'.repeat(100_000), priority: 'Error', output: 'z'.repeat(100_000) });
    expect(s.name.length).toBeLessThanOrEqual(500);
    expect(s.summary.length).toBeLessThanOrEqual(2000);
  });
});
