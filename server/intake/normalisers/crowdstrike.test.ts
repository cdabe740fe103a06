import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './crowdstrike.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'crowdstrike';

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

  it('gives a re-sent detection the same fingerprint', () => {
    const body = bodyOf('detection-summary-high.json') as { metadata: object };
    const again = {
      ...body,
      metadata: { ...body.metadata, offset: 3320001, eventCreationTime: 1775040000000 },
    };
    expect(one(again)?.fingerprint).toBe(one(body)?.fingerprint);
  });

  it('keeps tactic, technique, user, file and hashes as labels', () => {
    expect(one(bodyOf('detection-summary-high.json'))?.labels).toMatchObject({
      Tactic: 'Credential Access',
      Technique: 'OS Credential Dumping',
      UserName: 'j.morales',
      FileName: 'rundll32.exe',
      SHA256String: 'b53f3c0cd32d7f20849850768da6431e5f876b7bfa61db0aa0700b02873393fa',
      event_type: 'DetectionSummaryEvent',
    });
    expect(one(bodyOf('detection-summary-high.json'))?.summary).toBe(
      'A process accessed LSASS memory in a way consistent with credential theft.',
    );
  });

  it('maps the numeric Severity when SeverityName is absent', () => {
    const body = bodyOf('detection-summary-high.json') as { event: object };
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
        one({ ...body, event: { ...body.event, SeverityName: null, Severity: severity } })
          ?.severity,
      ).toBe(want);
    }
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
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

  it('starts at metadata.eventCreationTime and summarises with the disposition', () => {
    expect(one(fixtures[0]?.body)).toMatchObject({
      started_at: '2020-06-18T11:17:12.000Z',
      summary: 'Detection, standard detection.',
      link: null,
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

describe('crowdstrike: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const graylog = { event_definition_id: 'd', event: { message: 'm' } };
    const noType = { metadata: {}, event: { DetectId: 'x' } };
    for (const body of [alertmanager, graylog, noType])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('crowdstrike: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { metadata: {} },
      { event: {} },
      { metadata: {}, event: {} },
      { metadata: { eventType: 'DetectionSummaryEvent' }, event: [] },
      { metadata: { eventType: 'DetectionSummaryEvent' }, event: { DetectName: 'n' } },
      { metadata: { eventType: 'DetectionSummaryEvent' }, event: { DetectId: 'i' } },
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
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
