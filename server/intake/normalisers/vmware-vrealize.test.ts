import { describe, expect, it } from 'vitest';
import { normaliser } from './vmware-vrealize.js';
import {
  allFixtures,
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
  SHALLOW_SWEEP_WITHOUT_EDGES,
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

const SOURCE = 'vmware-vrealize';
const RECEIVED = CONTEXT.receivedAt;
const { only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
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

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives ACTIVE and CANCELED of the same alert the same fingerprint', () => {
    expectPaired(only(project('alert-active-critical.json')), only(project('alert-canceled.json')));
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

const SHARED: Record<string, CountedWant<Core>> = {
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('starts at startDate (epoch ms) and ignores cancelDate on an active alert', () => {
    const s = only(fixtures.find((f) => f.file === 'alerta-vrops-alert-active.json')?.body);
    expect(s).toMatchObject({
      started_at: '2013-05-28T16:09:06.267Z',
      ended_at: null,
      summary: 'sample-info',
    });
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('vmware-vrealize: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const panther = {
      id: 'AWS.Root.Login',
      alertId: '6d9c2f1e8a7b',
      name: 'Root login',
      type: 'RULE',
      severity: 'HIGH',
      createdAt: '2026-01-01T00:00:00Z',
    };
    expectNotDetected(normaliser, [panther]);
  });

  it('answers to the vrealize and vrops aliases', () => {
    expect(normaliser.aliases).toEqual(expect.arrayContaining(['vrealize', 'vrops']));
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('vmware-vrealize: hostile input', () => {
  it('throws NotReadableError for bodies that are not vROps notifications', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { alertId: 'a', name: 'Root login', type: 'RULE', severity: 'HIGH' },
      { alertId: 'a', criticality: 'ALERT_CRITICALITY_LEVEL_INFO' },
      { alertId: {}, criticality: 'ALERT_CRITICALITY_LEVEL_INFO', alertName: 'n' },
    ]);
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
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
