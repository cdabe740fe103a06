import { describe, expect, it } from 'vitest';
import { normaliser } from './sentinel.js';
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
  SHALLOW_SWEEP,
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

const SOURCE = 'sentinel';
const RECEIVED = CONTEXT.receivedAt;
const { first, project } = readerFor(normaliser);

const ARM =
  '/subscriptions/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9/resourceGroups/rg-soc/providers/Microsoft.OperationalInsights/workspaces/law-soc-eu/providers/Microsoft.SecurityInsights/incidents/';
const PORTAL = 'https://portal.azure.com/#asset/Microsoft_Azure_Security_Insights/Incident';
const SHARED_ARM =
  '/subscriptions/d0cfe6b2-9ac0-4464-9919-dccaee2e48c0/resourceGroups/rg-secops-prod/providers/Microsoft.OperationalInsights/workspaces/law-sentinel-prod/providers/Microsoft.SecurityInsights/incidents/73e01a99-5cd7-4139-a149-9f2736ff2ab5';

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
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

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives the incident and its closing the same fingerprint', () => {
    expectPaired(
      first(project('incident-active-high.json')),
      first(project('incident-closed-high.json')),
    );
  });

  it('keeps classification, tactics and owner as labels', () => {
    expect(first(project('incident-closed-high.json'))?.labels).toMatchObject({
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
    const body = project('incident-closed-high.json') as { object: { properties: object } };
    const { incidentUpdates: _, ...rest } = body as { incidentUpdates?: unknown };
    expect(first(rest)?.ended_at).toBe('2026-09-15T13:58:44.902Z');
    const bare = {
      ...rest,
      object: {
        ...body.object,
        properties: { ...body.object.properties, closedTimeUtc: null, lastModifiedTimeUtc: '' },
      },
    };
    expect(first(bare)?.ended_at).toBe(RECEIVED);
  });

  it('reads a bare incident resource (no trigger envelope)', () => {
    const body = project('incident-active-high.json') as { object: object };
    expect(first(body.object)).toMatchObject({
      name: 'Mass download by a single user',
      service: null,
    });
  });
});

describe('sentinel: control messages', () => {
  it('acknowledges a status that is not a state change', () => {
    const body = project('incident-active-high.json') as { object: { properties: object } };
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

const SHARED: Record<string, CountedWant<Core>> = {
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('ends the closed incident at incidentUpdates.updatedTime', () => {
    const body = fixtures.find(
      (f) => f.file === 'spike-docs-logicapp-incident-trigger-closed.json',
    )?.body;
    expect(first(body)).toMatchObject({
      started_at: '2026-10-09T01:58:41.000Z',
      ended_at: '2026-10-09T03:02:44.000Z',
    });
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('sentinel: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
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
    expectNotDetected(normaliser, [alertmanager, azureMonitor, otherArm]);
  });

  it('answers to its alias', () => {
    expect(normaliser.aliases).toContain('azure-sentinel');
  });
});

// Hostile input -------------------------------------------------------------------------

describe('sentinel: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { workspaceInfo: {} },
      { object: 'x' },
      { object: { id: 'i' } },
      { object: { id: 'i', properties: { title: 't' } } },
      { object: { properties: { title: 't', status: 'New' } } },
    ];
    expectNotReadable(normaliser, bodies);
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
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });
});
