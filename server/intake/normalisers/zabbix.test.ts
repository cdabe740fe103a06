import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './zabbix.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'zabbix';
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
  'problem-replication-lag.json': [
    {
      name: 'PostgreSQL replication lag is too high',
      status: 'firing',
      severity: 'high',
      // The `service` trigger tag.
      service: 'orders-db',
      resource: 'pg-replica-02.dc1.acme.example',
      fingerprint: '8812045',
      started_at: '2026-03-11T08:02:02.000Z',
      ended_at: null,
      link: 'https://zabbix.acme.example/tr_events.php?triggerid=31877&eventid=8812045',
    },
  ],
  'resolved-replication-lag.json': [
    {
      name: 'PostgreSQL replication lag is too high',
      status: 'resolved',
      severity: 'high',
      service: 'orders-db',
      resource: 'pg-replica-02.dc1.acme.example',
      fingerprint: '8812045',
      started_at: '2026-03-11T08:02:02.000Z',
      ended_at: '2026-03-11T08:16:44.000Z',
      link: 'https://zabbix.acme.example/tr_events.php?triggerid=31877&eventid=8812045',
    },
  ],
  'update-acknowledged.json': { control: 'zabbix problem update' },
};

describe('zabbix: project fixtures', () => {
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

  it('gives the problem and its recovery the same fingerprint', () => {
    const a = one(bodyOf('problem-replication-lag.json'));
    const b = one(bodyOf('resolved-replication-lag.json'));
    expect([a?.status, b?.status]).toEqual(['firing', 'resolved']);
    expect(b?.fingerprint).toBe(a?.fingerprint);
  });

  it('keeps the other template values and tags as labels, not unexpanded macros', () => {
    const s = one(bodyOf('problem-replication-lag.json'));
    expect(s?.labels).toEqual({
      severity: 'High',
      item: 'Replication lag: 412 s',
      event_id: '8812045',
      event_timestamp: '1773216122',
      host_groups: 'Databases, DC1',
      opdata: 'lag 412 s',
      'tag.service': 'orders-db',
      'tag.scope': 'performance',
      trigger_id: '31877',
    });
  });

  it('maps every severity name and number', () => {
    const body = bodyOf('problem-replication-lag.json') as object;
    const cases = [
      ['Disaster', 'critical'],
      ['High', 'high'],
      ['Average', 'warning'],
      ['Warning', 'warning'],
      ['Information', 'info'],
      ['Not classified', 'unknown'],
      [5, 'critical'],
      [1, 'info'],
    ] as const;
    for (const [severity, want] of cases) expect(one({ ...body, severity })?.severity).toBe(want);
  });

  it('accepts OK as a recovery and {EVENT.TAGS} as a string', () => {
    const body = {
      ...(bodyOf('problem-replication-lag.json') as object),
      status: 'OK',
      tags: 'service:ledger, env:prod',
    };
    expect(one(body)).toMatchObject({ status: 'resolved', service: 'ledger', ended_at: RECEIVED });
  });

  it('ignores an empty eventid in the link and an empty service tag', () => {
    const body = {
      hostname: 'h1',
      trigger: 'Disk full',
      status: 'PROBLEM',
      severity: 'High',
      link: 'https://z/tr_events.php?triggerid=&eventid=',
      tags: 'service:, env:prod',
    };
    const s = one(body);
    expect(s?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(s?.service).toBeNull();
  });

  it('falls back to a hash of trigger id and host without an event id', () => {
    const s = one({
      hostname: 'h1',
      trigger: 'Disk full',
      status: 'PROBLEM',
      severity: 'High',
      link: 'https://z/tr_events.php?triggerid=9',
    });
    const again = one({
      hostname: 'h1',
      trigger: 'Disk full',
      status: 'RESOLVED',
      severity: 'High',
      link: 'https://z/tr_events.php?triggerid=9',
    });
    expect(s?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(again?.fingerprint).toBe(s?.fingerprint);
    expect(s?.started_at).toBe(RECEIVED);
  });
});

describe('zabbix: control messages', () => {
  it('acknowledges an unknown status', () => {
    const body = { ...(bodyOf('problem-replication-lag.json') as object), status: 'DISCOVERED' };
    expect(normaliser.normalise(body, CONTEXT)).toEqual({
      kind: 'control',
      reason: 'zabbix status discovered is not a state change',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'zulip-custom-webhook-problem.json': {
    count: 1,
    signals: [
      {
        name: 'Zabbix agent on www.example.com is unreachable for 5 minutes',
        status: 'firing',
        severity: 'warning',
        service: null,
        resource: 'www.example.com',
        // eventid= in the link.
        fingerprint: '10528',
      },
    ],
  },
};

describe.runIf(hasShared)('zabbix: shared fixtures', () => {
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

  it('uses receive time (the template carries no time)', () => {
    expect(one(fixtures[0]?.body)?.started_at).toBe(RECEIVED);
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

describe('zabbix: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const checkmk = {
      what: 'HOST',
      notification_type: 'PROBLEM',
      host: 'h',
      status: 'DOWN',
      severity: 'CRITICAL',
      output: 'x',
    };
    const riemann = { host: 'h', service: 's', state: 'critical', metric: 1 };
    for (const body of [alertmanager, checkmk, riemann])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('zabbix: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { hostname: 'h', status: 'PROBLEM' },
      { trigger: 't' },
      { trigger: '{TRIGGER.NAME}', status: 'PROBLEM' },
      { trigger: ['t'], status: 'PROBLEM' },
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
      { trigger: 't', status: 'PROBLEM', tags: deepArray(100_000) },
      { trigger: 't', status: 'PROBLEM', tags: [nested('tag', 10_000, 'x')] },
      { trigger: 't', status: 'PROBLEM', link: '?' + '&'.repeat(5_000_000) },
      { trigger: 'x'.repeat(5_000_000), status: 'PROBLEM', event_id: 'e'.repeat(5_000) },
    ];
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
