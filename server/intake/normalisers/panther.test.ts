import { describe, expect, it } from 'vitest';
import { normaliser } from './panther.js';
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
  SHALLOW_SWEEP,
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

const SOURCE = 'panther';
const { first, project } = readerFor(normaliser);

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'rule-high-aws-root-login.json': [
    {
      name: 'AWS Root Console Login',
      status: 'firing',
      severity: 'high',
      service: null,
      resource: null,
      fingerprint: '4c2a9e7f1b3d5a6c8e0f2b4d6a8c0e1f',
      started_at: '2026-04-11T22:14:08.551Z',
      ended_at: null,
      link: 'https://acme.runpanther.net/alerts/4c2a9e7f1b3d5a6c8e0f2b4d6a8c0e1f',
    },
  ],
  'policy-medium-s3-public.json': [
    {
      name: 'S3 Bucket Public Read',
      status: 'firing',
      severity: 'warning',
      service: null,
      // alertContext.resourceId
      resource: 'arn:aws:s3:::acme-exports',
      fingerprint: '0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b',
      started_at: '2026-04-12T06:00:41.000Z',
      ended_at: null,
      link: 'https://acme.runpanther.net/alerts/0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b',
    },
  ],
  'scheduled-rule-critical-no-context.json': [
    {
      name: 'Okta Brute Force',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: null,
      fingerprint: '7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d',
      started_at: '2026-04-13T01:30:00.000Z',
      ended_at: null,
      link: 'https://acme.runpanther.net/alerts/7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d',
    },
  ],
};

describe('panther: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives a re-delivered alert the same fingerprint', () => {
    const body = project('rule-high-aws-root-login.json') as object;
    const again = { ...body, title: 'AWS root console login from 203.0.113.10' };
    expect(first(again)?.fingerprint).toBe(first(body)?.fingerprint);
  });

  it('keeps the rule id, tags and alert context as labels; the title as the summary', () => {
    const s = first(project('rule-high-aws-root-login.json'));
    expect(s?.summary).toBe('AWS root console login from 203.0.113.9');
    expect(s?.labels).toMatchObject({
      rule_id: 'AWS.Console.RootLogin',
      type: 'RULE',
      tags: 'AWS, Identity & Access Management',
      'context.sourceIPAddress': '203.0.113.9',
      'context.account': '381492006711',
      'context.mfaUsed': 'false',
    });
  });

  it('falls back to the rule id when the rule has no name', () => {
    const body = { ...(project('scheduled-rule-critical-no-context.json') as object), name: '' };
    expect(first(body)?.name).toBe('Okta.BruteForce.Scheduled');
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'nmcgrady-webhook-test-rule-alert.json': {
    count: 1,
    signals: [
      {
        name: 'Monitor Suspicious IPs',
        status: 'firing',
        severity: 'info',
        // Tags are detection categories ("Network Monitoring"), not services.
        service: null,
        resource: null,
        fingerprint: 'b90c19e66e160e194a5b3b94ec27fb7c',
      },
    ],
  },
};

describe.runIf(hasShared)('panther: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('keeps tags and alertContext as labels', () => {
    expect(first(fixtures[0]?.body)?.labels).toMatchObject({
      rule_id: 'AllLogs.IPMonitoring',
      tags: 'Network Monitoring, Threat Intel',
      'context.key': 'value',
    });
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('panther: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const vrealize = {
      alertId: 'sample-alert-uuid',
      criticality: 'ALERT_CRITICALITY_LEVEL_WARNING',
      status: 'ACTIVE',
      type: 'ALERT_TYPE_APPLICATION_PROBLEM',
    };
    const opsgenie = { action: 'Create', alert: { alertId: 'a' }, severity: 'P1', type: 'RULE' };
    expectNotDetected(normaliser, [alertmanager, vrealize, opsgenie]);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('panther: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { alertId: 'a' },
      { name: 'n' },
      { alertId: ['a'], name: 'n' },
      { alertId: {}, name: 'n' },
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
      {
        alertId: 'a',
        name: 'n',
        alertContext: nested('resource', 10_000, 'r'),
        tags: deepArray(100_000),
      },
      { alertId: 'a', name: 'n', alertContext: { resource: deepArray(100_000) } },
      { alertId: 'a'.repeat(5_000_000), name: 'n'.repeat(5_000_000), title: 't'.repeat(5_000_000) },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });
});
