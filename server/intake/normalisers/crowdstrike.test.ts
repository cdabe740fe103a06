import { describe, expect, it } from 'vitest';
import { normaliser } from './crowdstrike.js';
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

const SOURCE = 'crowdstrike';
const { first, project } = readerFor(normaliser);

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'detection-summary-high.json': [
    {
      name: 'Credential Dumping',
      status: 'firing',
      severity: 'high',
      service: null,
      resource: 'FIN-LT-0231',
      fingerprint: 'ldt:9a8b7c6d5e4f40312a1b0c9d8e7f6a5b:8821004561',
      started_at: '2026-04-01T09:52:01.000Z',
      ended_at: null,
      link: 'https://falcon.eu-1.crowdstrike.com/activity/detections/detail/9a8b7c6d5e4f40312a1b0c9d8e7f6a5b/8821004561',
    },
  ],
  'epp-detection-summary-critical.json': [
    {
      name: 'Ransomware',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: 'SRV-FILE-02',
      fingerprint:
        '7d3c2b1a0f9e8d7c6b5a493827161504:ind:0a1b2c3d4e5f46a7b8c9d0e1f2a3b4c5:11942881234-10-3',
      started_at: '2026-04-01T11:10:00.512Z',
      ended_at: null,
      link: 'https://falcon.eu-1.crowdstrike.com/unified-detections/7d3c2b1a0f9e8d7c6b5a493827161504:ind:0a1b2c3d4e5f46a7b8c9d0e1f2a3b4c5:11942881234-10-3',
    },
  ],
  'user-activity-audit-control.json': {
    control: 'crowdstrike UserActivityAuditEvent is not a detection',
  },
};

describe('crowdstrike: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives a re-sent detection the same fingerprint', () => {
    const body = project('detection-summary-high.json') as { metadata: object };
    const again = {
      ...body,
      metadata: { ...body.metadata, offset: 3320001, eventCreationTime: 1775040000000 },
    };
    expect(first(again)?.fingerprint).toBe(first(body)?.fingerprint);
  });

  it('keeps tactic, technique, user, file and hashes as labels', () => {
    expect(first(project('detection-summary-high.json'))?.labels).toMatchObject({
      Tactic: 'Credential Access',
      Technique: 'OS Credential Dumping',
      UserName: 'j.morales',
      FileName: 'rundll32.exe',
      SHA256String: 'b53f3c0cd32d7f20849850768da6431e5f876b7bfa61db0aa0700b02873393fa',
      event_type: 'DetectionSummaryEvent',
    });
    expect(first(project('detection-summary-high.json'))?.summary).toBe(
      'A process accessed LSASS memory in a way consistent with credential theft.',
    );
  });

  it('maps the numeric Severity when SeverityName is absent', () => {
    const body = project('detection-summary-high.json') as { event: object };
    const cases = [
      [5, 'critical'],
      [4, 'high'],
      [3, 'warning'],
      [2, 'info'],
      [1, 'info'],
      [0, 'unknown'],
    ] as const;
    for (const [severity, want] of cases) {
      expect(
        first({ ...body, event: { ...body.event, SeverityName: null, Severity: severity } })
          ?.severity,
      ).toBe(want);
    }
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'xsoar-streaming-detectionsummaryevent.json': {
    count: 1,
    signals: [
      {
        name: 'Suspicious Activity',
        status: 'firing',
        severity: 'info',
        // Tactic ("Falcon Overwatch") is kept as a label, not taken for a service.
        service: null,
        resource: 'FALCON-CROWDSTR',
        fingerprint: 'ldt:15dbb9d8f06b45fe9f61eb46e829d986:55929758895',
      },
    ],
  },
};

describe.runIf(hasShared)('crowdstrike: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('starts at metadata.eventCreationTime and summarises with the disposition', () => {
    expect(first(fixtures[0]?.body)).toMatchObject({
      started_at: '2020-06-18T11:17:12.000Z',
      summary: 'Detection, standard detection.',
      link: null,
    });
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('crowdstrike: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const graylog = { event_definition_id: 'd', event: { message: 'm' } };
    const noType = { metadata: {}, event: { DetectId: 'x' } };
    expectNotDetected(normaliser, [alertmanager, graylog, noType]);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('crowdstrike: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { metadata: {} },
      { event: {} },
      { metadata: {}, event: {} },
      { metadata: { eventType: 'DetectionSummaryEvent' }, event: [] },
      { metadata: { eventType: 'DetectionSummaryEvent' }, event: { DetectName: 'n' } },
      { metadata: { eventType: 'DetectionSummaryEvent' }, event: { DetectId: 'i' } },
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
      { metadata: { eventType: 'DetectionSummaryEvent' }, event: nested('DetectId', 10_000, 'x') },
      {
        metadata: { eventType: 'EppDetectionSummaryEvent' },
        event: { Name: 'n', CompositeId: 'c', CommandLine: deepArray(100_000) },
      },
      { metadata: { eventType: 'x'.repeat(5_000_000) }, event: {} },
      {
        metadata: { eventType: 'DetectionSummaryEvent' },
        event: { DetectName: 'n'.repeat(5_000_000), DetectId: 'i'.repeat(5_000_000) },
      },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });
});
