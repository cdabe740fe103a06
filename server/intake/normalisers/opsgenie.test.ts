import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './opsgenie.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'opsgenie';
const RECEIVED = CONTEXT.receivedAt;

type Core = Pick<Signal, 'name' | 'status' | 'severity' | 'service' | 'resource' | 'fingerprint'>;
type Fields = Core & Pick<Signal, 'started_at' | 'ended_at' | 'link'>;
type Want<T> = readonly T[] | { readonly control: string };

const core = (s: Signal): Core => ({
  name: s.name,
  status: s.status,
  severity: s.severity,
  service: s.service,
  resource: s.resource,
  fingerprint: s.fingerprint,
});
const fields = (s: Signal): Fields => ({
  ...core(s),
  started_at: s.started_at,
  ended_at: s.ended_at,
  link: s.link,
});

const run = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);

/** The signals of a result, each passing the intake's shape check. */
function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

function expectWanted<T>(r: NormaliseResult, want: Want<T> | undefined, pick: (s: Signal) => T) {
  if (want === undefined) throw new Error('no expectation for this fixture');
  if ('control' in want) expect(r).toEqual({ kind: 'control', reason: want.control });
  else expect(signalsOf(r).map(pick)).toEqual(want);
}

function bodyOf(fixtures: readonly Fixture[], file: string): unknown {
  const f = fixtures.find((x) => x.file === file);
  if (f === undefined) throw new Error(`no fixture ${file}`);
  return f.body;
}

/** Either a result whose signals pass the intake's shape check, or NotReadableError. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  let r: NormaliseResult;
  try {
    r = run(body);
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
    return;
  }
  if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  else expect(typeof r.reason).toBe('string');
}

function nested(levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

const HOSTILE: unknown[] = [
  null,
  42,
  'x',
  '',
  true,
  [],
  {},
  [{}],
  { alerts: 'no' },
  { alerts: [null, 1, 'x', []] },
  nested(100_000, 1),
  deepArray(100_000),
  'x'.repeat(5_000_000),
  { x: 'y'.repeat(5_000_000) },
];

/** Wrong types put at every path of a valid body. */
const WRONG: unknown[] = [
  null,
  42,
  -1,
  'x',
  '',
  true,
  [],
  {},
  [null],
  'x'.repeat(100_000),
  nested(20_000, 'x'),
  deepArray(20_000),
];

type Path = readonly (string | number)[];

/** Every path of a body to depth 6 (the first 3 elements of arrays). */
function pathsOf(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length >= 6 || typeof v !== 'object' || v === null) return out;
  const entries: [string | number, unknown][] = Array.isArray(v)
    ? v.slice(0, 3).map((x: unknown, i) => [i, x])
    : Object.entries(v);
  for (const [k, x] of entries) {
    const p = [...prefix, k];
    out.push(p);
    pathsOf(x, p, out);
  }
  return out;
}

/** A copy of body with the value at path replaced. */
function replaced(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body);
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path.at(-1);
  if (last !== undefined) cur[last] = value;
  return copy;
}

// Project fixtures -----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  // createdAt is epoch ms; the body names no Opsgenie domain, so there is no link.
  'create-p1.json': [
    {
      name: 'Kafka consumer lag above 50k on orders-ingest',
      status: 'firing',
      severity: 'critical',
      service: 'Data Platform',
      resource: 'kafka-broker-3',
      fingerprint: 'orders-ingest-consumer-lag',
      started_at: '2025-05-13T07:06:40.111Z',
      ended_at: null,
      link: null,
    },
  ],
  // updatedAt is epoch ns.
  'close.json': [
    {
      name: 'Kafka consumer lag above 50k on orders-ingest',
      status: 'resolved',
      severity: 'critical',
      service: 'Data Platform',
      resource: 'kafka-broker-3',
      fingerprint: 'orders-ingest-consumer-lag',
      started_at: '2025-05-13T07:06:40.111Z',
      ended_at: '2025-05-13T07:51:53.456Z',
      link: null,
    },
  ],
  'add-note.json': { control: 'Opsgenie AddNote is an update, not a state change' },
};

describe('opsgenie: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), PROJECT[file], fields);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('gives Create and Close of the same alert the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'create-p1.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'close.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });

  it('maps every action: UnAcknowledge fires, Delete resolves, the rest are control', () => {
    const body = bodyOf(fixtures, 'create-p1.json') as object;
    const as = (action: string) => run({ ...body, action });
    expect(signalsOf(as('UnAcknowledge'))[0]?.status).toBe('firing');
    expect(signalsOf(as('Delete'))[0]?.status).toBe('resolved');
    for (const action of ['Acknowledge', 'AddTags', 'AssignOwnership', 'Escalate', 'Snooze']) {
      expect(as(action)).toEqual({
        kind: 'control',
        reason: `Opsgenie ${action} is an update, not a state change`,
      });
    }
  });

  it('keeps tags, teams, details and ids as labels', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'create-p1.json')));
    expect(s?.labels).toEqual({
      action: 'Create',
      alertId: '9b4f1e2c-7a3d-4c58-b0e6-2d91f8a7c345-1747120000111',
      tinyId: '4821',
      alias: 'orders-ingest-consumer-lag',
      source: 'Prometheus',
      entity: 'kafka-broker-3',
      priority: 'P1',
      username: 'System',
      integrationName: 'Intake webhook',
      tags: 'kafka,orders,env:prod',
      teams: 'Data Platform',
      'details.cluster': 'kafka-prod-eu',
      'details.consumer_group': 'orders-ingest',
    });
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'zulip-close.json': [
    {
      name: 'test alert',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: 'aliastest',
    },
  ],
  // Numeric priority 3 reads as P3 → warning.
  'zulip-create.json': [
    {
      name: 'another alert',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'Server',
      fingerprint: 'alert-alias',
    },
  ],
};

describe.runIf(hasShared)('opsgenie: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), SHARED[file], core);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('reads createdAt (ms) and the nanosecond updatedAt of a Close', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'zulip-close.json')));
    expect(s).toMatchObject({
      started_at: '2015-01-05T10:03:11.104Z',
      ended_at: '2015-01-05T10:06:14.669Z',
    });
  });
});

// Detection ------------------------------------------------------------------------------

describe('opsgenie: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    for (const body of [null, {}, [], { action: 'Create' }, { action: 'Create', alert: {} }]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for a Sentry issue hook and a PagerDuty v3 event', () => {
    const sentry = { action: 'created', installation: { uuid: 'u' }, data: { issue: { id: '1' } } };
    const pagerduty = { event: { event_type: 'incident.triggered', resource_type: 'incident' } };
    expect(normaliser.detect(sentry, CONTEXT)).toBe(false);
    expect(normaliser.detect(pagerduty, CONTEXT)).toBe(false);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('opsgenie: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
  });

  it('refuses a body without action or alert id', () => {
    expect(() => run({ alert: { alertId: 'a' } })).toThrow(/action/);
    expect(() => run({ action: 'Create', alert: 'x' })).toThrow(NotReadableError);
    expect(() => run({ action: 'Create', alert: {} })).toThrow(/alertId/);
  });

  it('names an alert without message by its alias or id, and survives deep details', () => {
    const [s] = signalsOf(
      run({ action: 'Create', alert: { alertId: 'a-1', details: { x: deepArray(50_000) } } }),
    );
    expect(s).toMatchObject({ name: 'a-1', fingerprint: 'a-1', started_at: RECEIVED });
  });
});
