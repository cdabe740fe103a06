import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './riemann.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'riemann';
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

const read = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);

function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

function only(body: unknown): Signal {
  const [s, ...rest] = signalsOf(read(body));
  expect(rest).toHaveLength(0);
  if (s === undefined) throw new Error('no signal');
  return s;
}

/** Either a result or NotReadableError; never another exception. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  try {
    const r = read(body);
    if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
    else expect(typeof r.reason).toBe('string');
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
  }
}

/** Copies of body with the value at each path (to depth 3) replaced by a wrong type. */
function* mutations(body: unknown, depth = 3): Generator<unknown> {
  const WRONG: unknown[] = [null, 42, 'x', [], {}, true, 'x'.repeat(100_000)];
  if (depth === 0 || typeof body !== 'object' || body === null) return;
  const entries = Array.isArray(body)
    ? body.map((v: unknown, i) => [String(i), v] as const)
    : Object.entries(body);
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

const project = (file: string): Record<string, unknown> => {
  const body = projectFixtures(SOURCE).find((f) => f.file === file)?.body;
  if (typeof body !== 'object' || body === null) throw new Error(`no fixture ${file}`);
  return body as Record<string, unknown>;
};

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, readonly Fields[] | Control> = {
  'event-critical.json': [
    {
      name: 'redis memory used',
      status: 'firing',
      severity: 'critical',
      service: 'redis memory used',
      resource: 'cache-02.example.net',
      // hashOf('riemann', 'cache-02.example.net', 'redis memory used')
      fingerprint: 'f14072c2db9bd0bb8b9cb00ae0e2bd12',
      // time: epoch seconds with a fraction.
      started_at: '2026-04-25T07:00:00.250Z',
      ended_at: null,
      link: null,
    },
  ],
  'event-ok.json': [
    {
      name: 'redis memory used',
      status: 'resolved',
      severity: 'info',
      service: 'redis memory used',
      resource: 'cache-02.example.net',
      fingerprint: 'f14072c2db9bd0bb8b9cb00ae0e2bd12',
      started_at: '2026-04-25T07:30:00.000Z',
      ended_at: '2026-04-25T07:30:00.000Z',
      link: null,
    },
  ],
  'event-warning-iso-time-custom-attrs.json': [
    {
      name: 'http req rate 5xx',
      status: 'firing',
      severity: 'warning',
      service: 'http req rate 5xx',
      resource: 'api-07',
      // hashOf('riemann', 'api-07', 'http req rate 5xx')
      fingerprint: '01cd0cf01b45f766b2de91211402260b',
      started_at: '2026-04-25T08:31:09.482Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('riemann: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = PROJECT[file];
      const got = read(body);
      if (want !== undefined && 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want.control });
      } else expect(signalsOf(got).map(fields)).toEqual(want);
    });
  }

  it('gives critical and ok of the same host and service the same fingerprint', () => {
    const critical = only(project('event-critical.json'));
    const ok = only(project('event-ok.json'));
    expect([critical.status, ok.status]).toEqual(['firing', 'resolved']);
    expect(ok.fingerprint).toBe(critical.fingerprint);
  });

  it('keeps state, metric, tags, ttl and custom attributes as labels', () => {
    const s = only(project('event-warning-iso-time-custom-attrs.json'));
    expect(s.labels).toEqual({
      state: 'warning',
      metric: '12.5',
      tags: 'api,http',
      ttl: '30',
      team: 'platform',
      environment: 'staging',
    });
    // No description: the state says what happened.
    expect(s.summary).toBe('http req rate 5xx is warning');
    expect(only(project('event-critical.json')).summary).toBe('used_memory/maxmemory above 95%');
  });

  it('fires any state but ok (expired included), with an unknown severity when not a severity word', () => {
    const body = project('event-critical.json');
    expect(only({ ...body, state: 'expired' })).toMatchObject({
      status: 'firing',
      severity: 'unknown',
    });
    expect(only({ ...body, state: 'OK' }).status).toBe('resolved');
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'alerta-event-ok.json': {
    count: 1,
    signals: [
      {
        name: 'servicejane',
        status: 'resolved',
        severity: 'info',
        service: 'servicejane',
        resource: 'hostbob',
        // hashOf('riemann', 'hostbob', 'servicejane')
        fingerprint: '227456275a7744e69cb76f167754b15d',
      },
    ],
  },
};

describe.runIf(hasShared)('riemann: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = SHARED[file];
      const got = read(body);
      if (want === undefined || 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want?.control });
        return;
      }
      const signals = signalsOf(got);
      expect(signals).toHaveLength(want.count);
      expect(signals.map(core)).toEqual(want.signals);
    });
  }

  it('starts and ends at receive time when the event has no time', () => {
    const s = only(fixtures.find((f) => f.file === 'alerta-event-ok.json')?.body);
    expect(s).toMatchObject({
      started_at: RECEIVED,
      ended_at: RECEIVED,
      summary: 'This is a description',
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

// Detection -------------------------------------------------------------------------------

describe('riemann: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const checkmk = {
      what: 'SERVICE',
      notification_type: 'PROBLEM',
      host: 'h',
      service: 's',
      status: 'DOWN',
    };
    const zabbix = {
      hostname: 'db-1',
      trigger: 'Replication lag',
      status: 'PROBLEM',
      severity: 'High',
    };
    const noMetric = { host: 'h', service: 's', state: 'critical' };
    for (const body of [checkmk, zabbix, noMetric])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('riemann: hostile input', () => {
  it('throws NotReadableError for bodies that are not Riemann events', () => {
    for (const body of [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { host: 'h', state: 'critical', metric: 1 },
      { host: 'h', service: 's', metric: 1 },
      { host: 'h', service: ['s'], state: 'ok' },
      { host: 'h', service: 's', state: 3 },
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
  });

  it('never throws anything but NotReadableError', () => {
    const base = { host: 'h', service: 's', state: 'critical', metric: 1 };
    const bodies: unknown[] = [
      { ...base, tags: deepArray(100_000), attributes: nested('a', 10_000, {}) },
      { ...base, description: nested('d', 10_000, 'x'), time: deepArray(100_000) },
      {
        ...base,
        host: 'x'.repeat(5_000_000),
        service: 'y'.repeat(5_000_000),
        description: 'z'.repeat(5_000_000),
      },
      { ...base, time: 'not a time', ttl: {}, host: 42 },
      Object.fromEntries(
        Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]).concat(Object.entries(base)),
      ),
    ];
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
