import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './dynatrace.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'dynatrace';
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

  it('gives firing and resolved of the same problem the same fingerprint', () => {
    const a = one(bodyOf('problem-open-performance.json'));
    const b = one(bodyOf('problem-resolved-performance.json'));
    expect([a?.status, b?.status]).toEqual(['firing', 'resolved']);
    expect(b?.fingerprint).toBe(a?.fingerprint);
  });

  it('splits Tags and keeps the impacted entities as labels', () => {
    const s = one(bodyOf('problem-open-performance.json'));
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
    expect(one(bodyOf('problem-open-availability-host.json'))?.summary).toBe(
      'Host or monitoring unavailable',
    );
  });

  it('treats MERGED as resolved, at receive time without an endTime', () => {
    const body = { ...(bodyOf('problem-open-availability-host.json') as object), State: 'MERGED' };
    expect(one(body)).toMatchObject({ status: 'resolved', ended_at: RECEIVED });
  });

  it('reads ProblemDetailsJSON given as a quoted string', () => {
    const body = bodyOf('problem-resolved-performance.json') as { ProblemDetailsJSON: unknown };
    const quoted = { ...body, ProblemDetailsJSON: JSON.stringify(body.ProblemDetailsJSON) };
    expect(one(quoted)).toMatchObject({
      started_at: '2026-03-27T08:50:00.000Z',
      ended_at: '2026-03-27T09:17:00.000Z',
    });
    expect(one({ ...body, ProblemDetailsJSON: '{not json' })?.started_at).toBe(RECEIVED);
  });
});

describe('dynatrace: control messages', () => {
  it('acknowledges a state that is not a state change', () => {
    const body = { ...(bodyOf('problem-open-performance.json') as object), State: 'UPDATED' };
    expect(normaliser.normalise(body, CONTEXT)).toEqual({
      kind: 'control',
      reason: 'dynatrace problem state updated is not a state change',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
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

  it('drops unexpanded placeholders from labels', () => {
    const s = one(fixtures[0]?.body);
    expect(s?.labels['tags']).toBeUndefined();
    expect(s?.labels['pid']).toBeUndefined();
    expect(s?.started_at).toBe(RECEIVED);
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

describe('dynatrace: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const newrelic = {
      id: 'i',
      issueUrl: 'https://x',
      state: 'ACTIVATED',
      alertConditionNames: ['c'],
    };
    expect(normaliser.detect(alertmanager, CONTEXT)).toBe(false);
    expect(normaliser.detect(newrelic, CONTEXT)).toBe(false);
    expect(normaliser.detect({ ProblemID: 'P-1' }, CONTEXT)).toBe(false);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('dynatrace: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { State: 'OPEN' },
      { State: 'OPEN', ProblemID: '{ProblemID}', PID: '{PID}', ProblemTitle: 't' },
      { State: 'OPEN', ProblemID: 'P-1' },
      { State: ['OPEN'], ProblemID: 'P-1', ProblemTitle: 't' },
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
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
