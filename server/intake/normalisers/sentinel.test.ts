import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './sentinel.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'sentinel';
const RECEIVED = CONTEXT.receivedAt;

const ARM =
  '/subscriptions/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9/resourceGroups/rg-soc/providers/Microsoft.OperationalInsights/workspaces/law-soc-eu/providers/Microsoft.SecurityInsights/incidents/';
const PORTAL = 'https://portal.azure.com/#asset/Microsoft_Azure_Security_Insights/Incident';
const SHARED_ARM =
  '/subscriptions/d0cfe6b2-9ac0-4464-9919-dccaee2e48c0/resourceGroups/rg-secops-prod/providers/Microsoft.OperationalInsights/workspaces/law-sentinel-prod/providers/Microsoft.SecurityInsights/incidents/73e01a99-5cd7-4139-a149-9f2736ff2ab5';

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
  'incident-active-high.json': [
    {
      name: 'Mass download by a single user',
      status: 'firing',
      severity: 'high',
      service: 'law-soc-eu',
      resource: 'mark.ortiz@acme.example',
      fingerprint: ARM + 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      started_at: '2026-09-15T09:12:00.000Z',
      ended_at: null,
      link: PORTAL + ARM + 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
    },
  ],
  'incident-closed-high.json': [
    {
      name: 'Mass download by a single user',
      status: 'resolved',
      severity: 'high',
      service: 'law-soc-eu',
      // The update body carries no Alerts.
      resource: null,
      fingerprint: ARM + 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      started_at: '2026-09-15T09:12:00.000Z',
      ended_at: '2026-09-15T13:58:45.000Z',
      link: PORTAL + ARM + 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
    },
  ],
  'incident-new-low-no-workspace-info.json': [
    {
      name: 'Rare subscription-level operation',
      status: 'firing',
      severity: 'info',
      service: null,
      resource: null,
      fingerprint: ARM + '9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b',
      // No firstActivityTimeUtc: createdTimeUtc.
      started_at: '2026-09-16T04:01:10.000Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('sentinel: project fixtures', () => {
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

  it('gives the incident and its closing the same fingerprint', () => {
    const a = one(bodyOf('incident-active-high.json'));
    const b = one(bodyOf('incident-closed-high.json'));
    expect([a?.status, b?.status]).toEqual(['firing', 'resolved']);
    expect(b?.fingerprint).toBe(a?.fingerprint);
  });

  it('keeps classification, tactics and owner as labels', () => {
    expect(one(bodyOf('incident-closed-high.json'))?.labels).toMatchObject({
      classification: 'BenignPositive',
      classification_reason: 'SuspiciousButExpected',
      classification_comment: 'Approved data migration',
      tactics: 'Exfiltration, Collection',
      owner: 'Lee Chen',
      incident_number: '8841',
      labels: 'exfiltration',
      updated_by: 'lee.chen@acme.example',
    });
  });

  it('ends at closedTimeUtc without incidentUpdates, at receive time without any end', () => {
    const body = bodyOf('incident-closed-high.json') as { object: { properties: object } };
    const { incidentUpdates: _, ...rest } = body as { incidentUpdates?: unknown };
    expect(one(rest)?.ended_at).toBe('2026-09-15T13:58:44.902Z');
    const bare = {
      ...rest,
      object: {
        ...body.object,
        properties: { ...body.object.properties, closedTimeUtc: null, lastModifiedTimeUtc: '' },
      },
    };
    expect(one(bare)?.ended_at).toBe(RECEIVED);
  });

  it('reads a bare incident resource (no trigger envelope)', () => {
    const body = bodyOf('incident-active-high.json') as { object: object };
    expect(one(body.object)).toMatchObject({
      name: 'Mass download by a single user',
      service: null,
    });
  });
});

describe('sentinel: control messages', () => {
  it('acknowledges a status that is not a state change', () => {
    const body = bodyOf('incident-active-high.json') as { object: { properties: object } };
    const odd = {
      ...body,
      object: { ...body.object, properties: { ...body.object.properties, status: 'Pending' } },
    };
    expect(normaliser.normalise(odd, CONTEXT)).toEqual({
      kind: 'control',
      reason: 'sentinel incident status pending is not a state change',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'spike-docs-logicapp-incident-trigger-new.json': {
    count: 1,
    signals: [
      {
        name: 'Brute force attack against Azure Portal',
        status: 'firing',
        severity: 'warning',
        service: 'law-sentinel-prod',
        resource: 'jane.doe@contoso.com',
        fingerprint: SHARED_ARM,
      },
    ],
  },
  'spike-docs-logicapp-incident-trigger-closed.json': {
    count: 1,
    signals: [
      {
        name: 'Brute force attack against Azure Portal',
        status: 'resolved',
        severity: 'warning',
        service: 'law-sentinel-prod',
        resource: null,
        fingerprint: SHARED_ARM,
      },
    ],
  },
};

describe.runIf(hasShared)('sentinel: shared fixtures', () => {
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

  it('ends the closed incident at incidentUpdates.updatedTime', () => {
    const body = fixtures.find(
      (f) => f.file === 'spike-docs-logicapp-incident-trigger-closed.json',
    )?.body;
    expect(one(body)).toMatchObject({
      started_at: '2026-10-09T01:58:41.000Z',
      ended_at: '2026-10-09T03:02:44.000Z',
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

describe('sentinel: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const azureMonitor = {
      schemaId: 'azureMonitorCommonAlertSchema',
      data: {
        essentials: { alertId: '/subscriptions/x/providers/Microsoft.AlertsManagement/alerts/1' },
      },
    };
    const otherArm = {
      object: {
        id: '/subscriptions/x/providers/Microsoft.Compute/virtualMachines/vm1',
        properties: {},
      },
    };
    for (const body of [alertmanager, azureMonitor, otherArm])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
  });

  it('answers to its alias', () => {
    expect(normaliser.aliases).toContain('azure-sentinel');
  });
});

// Hostile input -------------------------------------------------------------------------

describe('sentinel: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { workspaceInfo: {} },
      { object: 'x' },
      { object: { id: 'i' } },
      { object: { id: 'i', properties: { title: 't' } } },
      { object: { properties: { title: 't', status: 'New' } } },
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
      { workspaceInfo: {}, object: nested('properties', 10_000, {}) },
      {
        object: {
          id: 'i',
          properties: {
            title: 't',
            status: 'New',
            labels: deepArray(100_000),
            Alerts: deepArray(100_000),
          },
        },
      },
      {
        object: {
          id: 'i'.repeat(5_000_000),
          properties: { title: 't'.repeat(5_000_000), status: 'Closed' },
        },
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
