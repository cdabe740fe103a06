import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './graylog.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'graylog';

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
  'event-grouped-by-service.json': [
    {
      name: 'HTTP 5xx burst',
      status: 'firing',
      severity: 'warning',
      // The group-by field `service`.
      service: 'cart-api',
      resource: 'graylog-node-1',
      fingerprint: '65f0c1d2e3a4b5c6d7e8f901:cart-api',
      started_at: '2026-07-08T14:03:27.918Z',
      ended_at: null,
      link: null,
    },
  ],
  'event-critical-no-key.json': [
    {
      name: 'Root login from unknown network',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: 'vpn-gw-1',
      fingerprint: '66b7c8d9e0f1a2b3c4d5e6f7',
      started_at: '2026-07-09T02:47:55.004Z',
      ended_at: null,
      link: null,
    },
  ],
  'legacy-stream-alert.json': [
    {
      name: 'Kernel messages',
      status: 'firing',
      severity: 'unknown',
      service: 'Kernel messages',
      resource: 'app-node-07',
      fingerprint: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
      started_at: '2017-03-09T21:30:04.221Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('graylog: project fixtures', () => {
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

  it('gives a repeat of the same definition and key the same fingerprint, another key another', () => {
    const body = bodyOf('event-grouped-by-service.json') as { event: object };
    const first = one(body);
    const repeat = one({
      ...body,
      event: { ...body.event, id: '01HZX9', timestamp: '2026-07-08T15:00:00.000Z' },
    });
    const other = one({ ...body, event: { ...body.event, key: 'search-api' } });
    expect(repeat?.fingerprint).toBe(first?.fingerprint);
    expect(other?.fingerprint).toBe('65f0c1d2e3a4b5c6d7e8f901:search-api');
  });

  it('keeps fields, group-by fields and the query as labels', () => {
    expect(one(bodyOf('event-grouped-by-service.json'))?.labels).toMatchObject({
      'field.service': 'cart-api',
      'field.count': '137',
      'group_by.service': 'cart-api',
      query: 'http_status:>=500',
      event_key: 'cart-api',
      backlog: '1',
    });
    expect(one(bodyOf('legacy-stream-alert.json'))?.labels).toMatchObject({
      condition_title: 'OOM killer activity',
      'condition.threshold': '10',
      matching_messages: '2',
    });
  });

  it('maps priorities 1 to 4', () => {
    const body = bodyOf('event-critical-no-key.json') as { event: object };
    const cases = [
      [1, 'info'],
      [2, 'warning'],
      [3, 'high'],
      [4, 'critical'],
      [9, 'unknown'],
    ] as const;
    for (const [priority, want] of cases) {
      expect(one({ ...body, event: { ...body.event, priority } })?.severity).toBe(want);
    }
  });

  it('hashes the stream when a legacy alert names no condition id', () => {
    const body = bodyOf('legacy-stream-alert.json') as { check_result: object };
    const s = one({ ...body, check_result: { ...body.check_result, triggered_condition: null } });
    expect(s?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'alerta-legacy-2x-stream-alert.json': {
    count: 1,
    signals: [
      {
        name: 'test',
        status: 'firing',
        severity: 'unknown',
        service: 'test',
        resource: '127.0.0.1',
        fingerprint: '5e7a9c8d-9bb1-47b6-b8db-4a3a83a25e0c',
      },
    ],
  },
  'keep-event-notification-http.json': {
    count: 1,
    signals: [
      {
        name: 'Event - 1',
        status: 'firing',
        severity: 'high',
        // Streams are ids only; no service field or group-by.
        service: null,
        resource: 'server',
        // event.key is "": the definition alone.
        fingerprint: '671a28a03696bb3801a7a9f1',
      },
    ],
  },
};

describe.runIf(hasShared)('graylog: shared fixtures', () => {
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

  it('does not detect the shared fixtures of other sources', () => {
    for (const other of sharedSources().filter((s) => s !== SOURCE)) {
      for (const { file, body } of sharedFixtures(other)) {
        expect(normaliser.detect(body, CONTEXT), `${other}/${file}`).toBe(false);
      }
    }
  });
});

// Detection -----------------------------------------------------------------------------

describe('graylog: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const crowdstrike = {
      metadata: { eventType: 'DetectionSummaryEvent' },
      event: { DetectId: 'x' },
    };
    const wazuh = { rule: { level: 5, id: '5710' }, agent: { id: '001' }, event: {} };
    for (const body of [alertmanager, crowdstrike, wazuh])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('graylog: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { event: 'x' },
      { event_definition_id: 'd' },
      { event_definition_id: 'd', event: [] },
      { event: {} },
      { check_result: {} },
      { check_result: {}, stream: 'x' },
      { check_result: {}, stream: {} },
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
        event_definition_id: 'd',
        event: { fields: nested('a', 10_000, 1), source_streams: deepArray(100_000) },
      },
      { check_result: nested('triggered_condition', 10_000, {}), stream: { title: 't' } },
      { event_definition_id: 'd'.repeat(5_000_000), event: { key: 'k'.repeat(5_000_000) } },
    ];
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
