import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './pingdom.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'pingdom';
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
  'check-down-high.json': [
    {
      name: 'Checkout API health',
      status: 'firing',
      severity: 'high',
      // check_type "HTTP" is a kind of check, not a service: kept as a label.
      service: null,
      resource: 'checkout.example.net',
      fingerprint: 'pingdom:4172093',
      started_at: '2026-04-01T11:15:00.000Z',
      ended_at: null,
      link: null,
    },
  ],
  'check-up-high.json': [
    {
      name: 'Checkout API health',
      status: 'resolved',
      severity: 'high',
      service: null,
      resource: 'checkout.example.net',
      fingerprint: 'pingdom:4172093',
      // The UP body carries only the time of the change back to UP.
      started_at: '2026-04-01T11:26:00.000Z',
      ended_at: '2026-04-01T11:26:00.000Z',
      link: null,
    },
  ],
  'tcp-down-low-utc-time-only.json': [
    {
      name: 'Mail relay SMTP',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'relay.mail.example.net',
      fingerprint: 'pingdom:4172311',
      // state_changed_utc_time has no zone: UTC.
      started_at: '2026-04-02T03:48:20.000Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('pingdom: project fixtures', () => {
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

  it('gives DOWN and UP of the same check the same fingerprint', () => {
    const down = only(project('check-down-high.json'));
    const up = only(project('check-up-high.json'));
    expect([down.status, up.status]).toEqual(['firing', 'resolved']);
    expect(up.fingerprint).toBe(down.fingerprint);
  });

  it('keeps check type, states, probes and tags as labels; long_description is the summary', () => {
    const s = only(project('check-down-high.json'));
    expect(s.labels).toMatchObject({
      check_id: '4172093',
      check_type: 'HTTP',
      current_state: 'DOWN',
      previous_state: 'UP',
      importance_level: 'HIGH',
      description: 'HTTP Error 504',
      full_url: 'https://checkout.example.net/healthz',
      tags: 'prod,checkout',
      first_probe: 'Amsterdam 6, Netherlands',
    });
    expect(s.summary).toBe('HTTP Server Error 504 Gateway Timeout');
  });

  it('fires on FAILING and resolves on SUCCESSFUL (transaction checks); other states are control', () => {
    const body = project('check-down-high.json');
    expect(only({ ...body, current_state: 'FAILING' }).status).toBe('firing');
    expect(only({ ...body, current_state: 'successful' }).status).toBe('resolved');
    expect(read({ ...body, current_state: 'PAUSED' })).toEqual({
      kind: 'control',
      reason: 'pingdom state PAUSED is not a transition',
    });
  });

  it('uses the receive time when the body has no time, and the full URL without a hostname', () => {
    const body = project('tcp-down-low-utc-time-only.json');
    const s = only({
      ...body,
      state_changed_utc_time: '',
      check_params: { full_url: 'https://relay.example.net/' },
    });
    expect(s.started_at).toBe(RECEIVED);
    expect(s.resource).toBe('https://relay.example.net/');
    expect(only({ ...body, importance_level: undefined }).severity).toBe('unknown');
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'alerta-http-down.json': {
    count: 1,
    signals: [
      {
        name: 'Alerta API on OpenShift',
        status: 'firing',
        severity: 'high',
        service: null,
        resource: 'api.alerta.io',
        fingerprint: 'pingdom:803318',
      },
    ],
  },
  'alerta-http-up.json': {
    count: 1,
    signals: [
      {
        name: 'Alerta API on OpenShift',
        status: 'resolved',
        severity: 'high',
        service: null,
        resource: 'api.alerta.io',
        fingerprint: 'pingdom:803318',
      },
    ],
  },
};

describe.runIf(hasShared)('pingdom: shared fixtures', () => {
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

  it('reads state_changed_timestamp (epoch s) as start, and as end on UP', () => {
    const of = (file: string) => only(fixtures.find((f) => f.file === file)?.body);
    expect(of('alerta-http-down.json').started_at).toBe('2017-06-30T22:25:43.000Z');
    expect(of('alerta-http-up.json').ended_at).toBe('2017-06-30T22:30:43.000Z');
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

describe('pingdom: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const uptimeKuma = {
      heartbeat: { status: 0, msg: 'down' },
      monitor: { id: 3, name: 'API', url: 'https://api.example.com' },
      msg: '[API] [🔴 Down] down',
    };
    const updown = { event: 'check.down', check: { token: 'ab12', url: 'https://x.example' } };
    expect(normaliser.detect(uptimeKuma, CONTEXT)).toBe(false);
    expect(normaliser.detect(updown, CONTEXT)).toBe(false);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('pingdom: hostile input', () => {
  it('throws NotReadableError for bodies that are not Pingdom webhooks', () => {
    for (const body of [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { check_id: 1, check_name: 'c' },
      { check_id: {}, current_state: 'DOWN', check_name: 'c' },
      { check_id: 1, current_state: 'DOWN', check_name: 7 },
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      {
        check_id: 1,
        current_state: 'DOWN',
        check_name: 'c',
        check_params: nested('p', 10_000, {}),
      },
      { check_id: 1, current_state: 'DOWN', check_name: 'c', tags: deepArray(100_000) },
      {
        check_id: 1,
        current_state: 'DOWN',
        check_name: 'c',
        first_probe: nested('location', 10_000, 'x'),
      },
      { check_id: 'x'.repeat(1_000_000), current_state: 'UP', check_name: 'y'.repeat(5_000_000) },
      { check_id: 1, current_state: 'x'.repeat(1_000_000), check_name: 'c' },
      {
        check_id: 1,
        current_state: 'DOWN',
        check_name: 'c',
        state_changed_timestamp: -5,
        tags: [{}, null],
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
