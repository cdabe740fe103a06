import { describe, expect, it } from 'vitest';
import { normaliser } from './dynatrace.js';
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

const SOURCE = 'dynatrace';
const RECEIVED = CONTEXT.receivedAt;
const { first, project } = readerFor(normaliser);

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'problem-open-performance.json': [
    {
      name: 'Response time degradation',
      status: 'firing',
      severity: 'warning',
      service: 'inventory-api',
      resource: 'inventory-api',
      fingerprint: '-3385112790461022105_1774601400000V2',
      started_at: '2026-03-27T08:50:00.000Z',
      ended_at: null,
      link: 'https://abc12345.live.dynatrace.com/#problems/problemdetails;pid=-3385112790461022105_1774601400000V2',
    },
  ],
  'problem-resolved-performance.json': [
    {
      name: 'Response time degradation',
      status: 'resolved',
      severity: 'warning',
      service: 'inventory-api',
      resource: 'inventory-api',
      fingerprint: '-3385112790461022105_1774601400000V2',
      started_at: '2026-03-27T08:50:00.000Z',
      ended_at: '2026-03-27T09:17:00.000Z',
      link: 'https://abc12345.live.dynatrace.com/#problems/problemdetails;pid=-3385112790461022105_1774601400000V2',
    },
  ],
  'problem-open-availability-host.json': [
    {
      name: 'Host or monitoring unavailable',
      status: 'firing',
      severity: 'high',
      service: null,
      // No ImpactedEntity: the HOST entity's name.
      resource: 'batch-runner-03',
      fingerprint: '7120944310388211456_1774710660000V2',
      // No ProblemDetailsJSON: receive time.
      started_at: RECEIVED,
      ended_at: null,
      link: 'https://abc12345.live.dynatrace.com/#problems/problemdetails;pid=7120944310388211456_1774710660000V2',
    },
  ],
};

describe('dynatrace: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives firing and resolved of the same problem the same fingerprint', () => {
    expectPaired(
      first(project('problem-open-performance.json')),
      first(project('problem-resolved-performance.json')),
    );
  });

  it('splits Tags and keeps the impacted entities as labels', () => {
    const s = first(project('problem-open-performance.json'));
    expect(s?.labels).toMatchObject({
      'tag.env': 'production',
      'tag.team': 'inventory',
      tags: 'env:production, team:inventory, tier-1',
      'entity.service': 'SERVICE-8A1C0E55D2B34F71',
      'entity.host': 'HOST-51F2A6B0C9D8E7F4',
      problem_id: 'P-26031187',
    });
    expect(s?.summary).toMatch(/^Response time degradation on web request service inventory-api/);
  });

  it('falls back to the title when ProblemDetailsText is empty', () => {
    expect(first(project('problem-open-availability-host.json'))?.summary).toBe(
      'Host or monitoring unavailable',
    );
  });

  it('treats MERGED as resolved, at receive time without an endTime', () => {
    const body = { ...(project('problem-open-availability-host.json') as object), State: 'MERGED' };
    expect(first(body)).toMatchObject({ status: 'resolved', ended_at: RECEIVED });
  });

  it('reads ProblemDetailsJSON given as a quoted string', () => {
    const body = project('problem-resolved-performance.json') as { ProblemDetailsJSON: unknown };
    const quoted = { ...body, ProblemDetailsJSON: JSON.stringify(body.ProblemDetailsJSON) };
    expect(first(quoted)).toMatchObject({
      started_at: '2026-03-27T08:50:00.000Z',
      ended_at: '2026-03-27T09:17:00.000Z',
    });
    expect(first({ ...body, ProblemDetailsJSON: '{not json' })?.started_at).toBe(RECEIVED);
  });
});

describe('dynatrace: control messages', () => {
  it('acknowledges a state that is not a state change', () => {
    const body = { ...(project('problem-open-performance.json') as object), State: 'UPDATED' };
    expect(normaliser.normalise(body, CONTEXT)).toEqual({
      kind: 'control',
      reason: 'dynatrace problem state updated is not a state change',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'autoremediation-lambda-test-notification-open.json': {
    count: 1,
    signals: [
      {
        name: 'Dynatrace problem notification test run',
        status: 'firing',
        severity: 'unknown',
        service: 'MyService1',
        resource: 'Test run',
        // PID is the unexpanded placeholder "{PID}": ProblemID instead.
        fingerprint: 'TESTID',
      },
    ],
  },
};

describe.runIf(hasShared)('dynatrace: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('drops unexpanded placeholders from labels', () => {
    const s = first(fixtures[0]?.body);
    expect(s?.labels['tags']).toBeUndefined();
    expect(s?.labels['pid']).toBeUndefined();
    expect(s?.started_at).toBe(RECEIVED);
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('dynatrace: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const newrelic = {
      id: 'i',
      issueUrl: 'https://x',
      state: 'ACTIVATED',
      alertConditionNames: ['c'],
    };
    expectNotDetected(normaliser, [alertmanager, newrelic, { ProblemID: 'P-1' }]);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('dynatrace: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { State: 'OPEN' },
      { State: 'OPEN', ProblemID: '{ProblemID}', PID: '{PID}', ProblemTitle: 't' },
      { State: 'OPEN', ProblemID: 'P-1' },
      { State: ['OPEN'], ProblemID: 'P-1', ProblemTitle: 't' },
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
        State: 'OPEN',
        ProblemID: 'P',
        ProblemTitle: 't',
        ProblemDetailsJSON: '['.repeat(200_000) + ']'.repeat(200_000),
      },
      { State: 'OPEN', ProblemID: 'P', ProblemTitle: 't', ImpactedEntities: deepArray(100_000) },
      {
        State: 'RESOLVED',
        ProblemID: 'P',
        ProblemTitle: 't',
        ProblemDetailsJSON: nested('startTime', 10_000, 1),
      },
      {
        State: 'OPEN',
        ProblemID: 'P',
        ProblemTitle: 'x'.repeat(5_000_000),
        Tags: ','.repeat(1_000_000),
      },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });
});
