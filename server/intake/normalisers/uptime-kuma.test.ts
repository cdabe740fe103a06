import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './uptime-kuma.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'uptime-kuma';

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
  'http-down.json': [
    {
      name: 'Billing portal',
      status: 'firing',
      // Kuma has no severity: DOWN is high.
      severity: 'high',
      // The monitor's "service" tag.
      service: 'billing',
      resource: 'https://billing.example.org/login',
      fingerprint: 'uptime-kuma:17',
      // localDateTime "2026-02-11 08:14:09" at timezoneOffset "+01:00".
      started_at: '2026-02-11T07:14:09.000Z',
      ended_at: null,
      link: 'https://billing.example.org/login',
    },
  ],
  'http-up.json': [
    {
      name: 'Billing portal',
      status: 'resolved',
      severity: 'high',
      service: 'billing',
      resource: 'https://billing.example.org/login',
      fingerprint: 'uptime-kuma:17',
      started_at: '2026-02-11T07:31:09.000Z',
      ended_at: '2026-02-11T07:31:09.000Z',
      link: 'https://billing.example.org/login',
    },
  ],
  'ping-maintenance.json': { control: 'uptime-kuma monitor is in maintenance' },
  'test-notification.json': {
    control: 'uptime-kuma notification without monitor or heartbeat',
  },
};

describe('uptime-kuma: project fixtures', () => {
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

  it('gives DOWN and UP of the same monitor the same fingerprint', () => {
    const down = only(project('http-down.json'));
    const up = only(project('http-up.json'));
    expect([down.status, up.status]).toEqual(['firing', 'resolved']);
    expect(up.fingerprint).toBe(down.fingerprint);
  });

  it('keeps monitor type, group, heartbeat message and tags as labels; msg is the summary', () => {
    const s = only(project('http-down.json'));
    expect(s.labels).toMatchObject({
      'monitor.id': '17',
      'monitor.type': 'http',
      'monitor.pathName': 'Customer apps / Billing portal',
      'heartbeat.msg': 'Request failed with status code 502',
      'heartbeat.important': 'true',
      'tag.service': 'billing',
      'tag.prod': 'true',
    });
    expect(s.summary).toBe('[Billing portal] [🔴 Down] Request failed with status code 502');
  });

  it('treats PENDING (2) as control, like MAINTENANCE (3)', () => {
    const body = project('http-down.json');
    const heartbeat = body['heartbeat'] as Record<string, unknown>;
    expect(read({ ...body, heartbeat: { ...heartbeat, status: 2 } })).toEqual({
      kind: 'control',
      reason: 'uptime-kuma monitor is pending',
    });
  });

  it('uses the group of a grouped monitor without a service tag, the hostname, and heartbeat.time', () => {
    const body = project('http-down.json');
    const monitor = body['monitor'] as Record<string, unknown>;
    const heartbeat = body['heartbeat'] as Record<string, unknown>;
    const s = only({
      ...body,
      monitor: {
        ...monitor,
        tags: [],
        type: 'port',
        url: 'https://',
        hostname: 'db.internal',
        port: 5432,
      },
      heartbeat: { ...heartbeat, localDateTime: undefined },
    });
    expect(s.service).toBe('Customer apps');
    // "https://" is Kuma's placeholder url for non-HTTP monitors: neither resource nor link.
    expect(s.resource).toBe('db.internal');
    expect(s.link).toBeNull();
    // heartbeat.time is UTC.
    expect(s.started_at).toBe('2026-02-11T07:14:09.532Z');
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'keep-test-trimmed-port-down-firing.json': {
    count: 1,
    signals: [
      {
        name: 'Port Monitor',
        status: 'firing',
        severity: 'high',
        service: null,
        // Trimmed: neither monitor.hostname nor monitor.url.
        resource: null,
        fingerprint: 'uptime-kuma:2',
      },
    ],
  },
  'keep-test-trimmed-up-resolved.json': {
    count: 1,
    signals: [
      {
        name: 'My Site',
        status: 'resolved',
        severity: 'high',
        service: null,
        resource: 'https://example.com',
        fingerprint: 'uptime-kuma:1',
      },
    ],
  },
};

describe.runIf(hasShared)('uptime-kuma: shared fixtures', () => {
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

  it('reads localDateTime with timezoneOffset, and ends UP at that time', () => {
    const of = (file: string) => only(fixtures.find((f) => f.file === file)?.body);
    expect(of('keep-test-trimmed-port-down-firing.json').started_at).toBe(
      '2022-08-26T01:02:24.000Z',
    );
    expect(of('keep-test-trimmed-up-resolved.json').ended_at).toBe('2022-08-26T01:02:24.000Z');
    expect(of('keep-test-trimmed-up-resolved.json').link).toBe('https://example.com');
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

describe('uptime-kuma: detect', () => {
  it('recognises every fixture of this source, the test notification included', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42, { msg: 'hello' }, { heartbeat: null, msg: 'x' }]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
    const pingdom = { check_id: 1, check_name: 'API', current_state: 'DOWN', check_type: 'HTTP' };
    expect(normaliser.detect(pingdom, CONTEXT)).toBe(false);
  });

  it('answers to the uptimekuma and kuma aliases', () => {
    expect(normaliser.aliases).toEqual(expect.arrayContaining(['uptimekuma', 'kuma']));
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('uptime-kuma: hostile input', () => {
  it('throws NotReadableError for bodies that are not Uptime Kuma notifications', () => {
    for (const body of [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { heartbeat: { status: 0 }, msg: 'x' },
      { heartbeat: 'x', monitor: { id: 1, name: 'm' } },
      { heartbeat: { status: 'down' }, monitor: { id: 1, name: 'm' } },
      { heartbeat: { status: 0 }, monitor: { url: 'https://x.example' } },
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      { heartbeat: nested('status', 10_000, 0), monitor: nested('name', 10_000, 'x') },
      { heartbeat: { status: 0 }, monitor: { id: 1, name: 'm', tags: deepArray(100_000) } },
      {
        heartbeat: { status: 0 },
        monitor: { id: 1, name: 'm', tags: [nested('name', 10_000, 1), null, 'x'] },
      },
      {
        heartbeat: { status: 0, msg: 'x'.repeat(5_000_000) },
        monitor: { id: 'y'.repeat(1_000_000), name: 'z'.repeat(5_000_000) },
      },
      {
        heartbeat: { status: 1, localDateTime: '2026-99-99 99:99:99', timezoneOffset: '+99:99' },
        monitor: { id: 1, name: 'm' },
      },
      {
        heartbeat: { status: 7 },
        monitor: { id: 1, name: 'm', url: 'x'.repeat(100_000), pathName: ' / ' },
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
