import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './updown.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'updown';
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

const events = (file: string): Record<string, unknown>[] => {
  const body = projectFixtures(SOURCE).find((f) => f.file === file)?.body;
  if (!Array.isArray(body)) throw new Error(`${file} is not an array`);
  return body as Record<string, unknown>[];
};

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, readonly Fields[] | Control> = {
  'batch-down-and-up.json': [
    {
      name: 'Status API',
      status: 'firing',
      // updown has no severity: a check that is down is high.
      severity: 'high',
      service: null,
      resource: 'status-api.example.com',
      fingerprint: 'updown:q7tk',
      started_at: '2026-06-03T09:11:41.000Z',
      ended_at: null,
      link: 'https://status-api.example.com/ping',
    },
    {
      // No alias: the URL names the check.
      name: 'https://docs.example.com/',
      status: 'resolved',
      severity: 'high',
      service: null,
      resource: 'docs.example.com',
      fingerprint: 'updown:b2mz',
      started_at: '2026-06-03T09:08:31.000Z',
      ended_at: '2026-06-03T09:12:52.000Z',
      link: 'https://docs.example.com/',
    },
  ],
  'check-ssl-expiration.json': [
    {
      name: 'Status API (SSL expiration)',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'status-api.example.com',
      fingerprint: 'updown:q7tk:ssl_expiration',
      started_at: '2026-06-04T00:00:12.000Z',
      ended_at: null,
      link: 'https://status-api.example.com/ping',
    },
  ],
  'check-up.json': [
    {
      name: 'Status API',
      status: 'resolved',
      severity: 'high',
      service: null,
      resource: 'status-api.example.com',
      fingerprint: 'updown:q7tk',
      started_at: '2026-06-03T09:11:41.000Z',
      ended_at: '2026-06-03T09:21:41.000Z',
      link: 'https://status-api.example.com/ping',
    },
  ],
};

describe('updown: project fixtures', () => {
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

  it('gives check.down and check.up of the same check the same fingerprint', () => {
    const [down] = signalsOf(read(events('batch-down-and-up.json')));
    const [up] = signalsOf(read(events('check-up.json')));
    expect([down?.status, up?.status]).toEqual(['firing', 'resolved']);
    expect(up?.fingerprint).toBe(down?.fingerprint);
  });

  it('reads a single event object as well as the array the webhook posts', () => {
    const [event] = events('check-up.json');
    expect(signalsOf(read(event)).map(fields)).toEqual(PROJECT['check-up.json']);
  });

  it('keeps check and downtime details as labels; the description is the summary', () => {
    const [down] = signalsOf(read(events('batch-down-and-up.json')));
    expect(down?.labels).toMatchObject({
      event: 'check.down',
      'check.token': 'q7tk',
      'check.alias': 'Status API',
      'check.error': '503 Service Unavailable',
      'check.last_status': '503',
      'downtime.id': '683ebd7dc2a1f40ab3b9e6d1',
    });
    expect(down?.summary).toBe(
      'DOWN: https://status-api.example.com/ping since 09:11:41 (UTC), reason: 503 Service Unavailable',
    );
  });

  it('pairs the certificate events as their own instance of the check', () => {
    const [check] = events('check-up.json');
    const of = (event: string) => signalsOf(read({ ...check, event, downtime: undefined }))[0];
    expect(
      [of('check.ssl_invalid'), of('check.ssl_valid')].map((s) => [s?.status, s?.fingerprint]),
    ).toEqual([
      ['firing', 'updown:q7tk:ssl'],
      ['resolved', 'updown:q7tk:ssl'],
    ]);
    expect(of('check.ssl_renewed')).toMatchObject({
      status: 'resolved',
      fingerprint: 'updown:q7tk:ssl_expiration',
      ended_at: '2026-06-03T09:21:44.000Z',
    });
    expect(of('check.performance_drop')).toMatchObject({
      status: 'firing',
      severity: 'warning',
      fingerprint: 'updown:q7tk:performance',
    });
  });

  it('acknowledges unknown check events, and reads an empty batch as no signals', () => {
    const [check] = events('check-up.json');
    expect(read({ ...check, event: 'check.paused' })).toEqual({
      kind: 'control',
      reason: 'updown event is not an alert',
    });
    expect(read([{ ...check, event: 'check.paused' }])).toEqual({
      kind: 'control',
      reason: 'updown events are not alerts',
    });
    expect(read([])).toEqual({ kind: 'signals', signals: [] });
  });

  it('ends check.up at the event time when the downtime has no end, else at receive time', () => {
    const [check] = events('check-up.json');
    expect(only({ ...check, downtime: null }).ended_at).toBe('2026-06-03T09:21:44.000Z');
    expect(only({ ...check, downtime: null, time: null }).ended_at).toBe(RECEIVED);
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'pipedream-check-down.json': {
    count: 1,
    signals: [
      {
        // alias is null: the URL names the check.
        name: 'https://updown.io',
        status: 'firing',
        severity: 'high',
        service: null,
        resource: 'updown.io',
        fingerprint: 'updown:xyz0',
      },
    ],
  },
};

describe.runIf(hasShared)('updown: shared fixtures', () => {
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

  it('starts at downtime.started_at and reads the same event inside an array', () => {
    const body = fixtures.find((f) => f.file === 'pipedream-check-down.json')?.body;
    expect(only(body).started_at).toBe('2024-03-15T21:02:54.000Z');
    const want = SHARED['pipedream-check-down.json'];
    expect(signalsOf(read([body])).map(core)).toEqual(
      want !== undefined && 'signals' in want ? want.signals : undefined,
    );
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

describe('updown: detect', () => {
  it('recognises every fixture of this source (arrays and single events)', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42, [null], [{ event: 'check.down' }]]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
    const datadog = {
      event_type: 'metric_alert_monitor',
      date: '1712000000000',
      org_id: '1',
      title: 'x',
    };
    const pagerduty = {
      event: { event_type: 'incident.triggered', resource_type: 'incident', data: {} },
    };
    expect(normaliser.detect(datadog, CONTEXT)).toBe(false);
    expect(normaliser.detect(pagerduty, CONTEXT)).toBe(false);
  });

  it('answers to the updown-io alias', () => {
    expect(normaliser.aliases).toContain('updown-io');
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('updown: hostile input', () => {
  it('throws NotReadableError for bodies that are not updown events', () => {
    for (const body of [
      null,
      42,
      'x',
      {},
      { alerts: 'no' },
      { event: 'check.down' },
      { event: 'incident.triggered', check: {} },
      { event: 'check.down', check: {} },
      [{ event: 'check.down', check: { token: 't' } }, 'x'],
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
  });

  it('never throws anything but NotReadableError', () => {
    const event = { event: 'check.down', check: { token: 't', url: 'https://a.example' } };
    const bodies: unknown[] = [
      {
        ...event,
        check: { ...event.check, custom_headers: nested('h', 10_000, {}) },
        downtime: nested('id', 10_000, 1),
      },
      {
        ...event,
        check: {
          ...event.check,
          recipients: deepArray(100_000),
          disabled_locations: deepArray(100_000),
        },
      },
      { ...event, ssl: nested('cert', 10_000, 'x') },
      {
        ...event,
        check: { token: 'x'.repeat(1_000_000), url: `https://${'y'.repeat(5_000_000)}` },
      },
      { ...event, check: { url: 'https://[::1', alias: [] }, time: {}, description: 42 },
      Array.from({ length: 5_000 }, () => event),
      [event, deepArray(100_000)],
    ];
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
