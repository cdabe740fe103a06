import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './grafana.js';
import { hashOf } from './read.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'grafana';
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

const LINK = 'https://grafana.acme.internal/alerting/grafana/fe3kq9x1m0c8wb/view?orgId=3';

const PROJECT: Record<string, Want<Fields>> = {
  // generatorURL is relative ("/alerting/grafana/…"): resolved against externalURL.
  'queue-backlog-firing.json': [
    {
      name: 'Payment queue backlog',
      status: 'firing',
      severity: 'high',
      service: 'Payments',
      resource: 'mq-02.acme.internal',
      fingerprint: '5b7e2c1d90a4f386',
      started_at: '2026-04-20T06:12:00.000Z',
      ended_at: null,
      link: LINK,
    },
  ],
  'queue-backlog-resolved.json': [
    {
      name: 'Payment queue backlog',
      status: 'resolved',
      severity: 'high',
      service: 'Payments',
      resource: 'mq-02.acme.internal',
      fingerprint: '5b7e2c1d90a4f386',
      started_at: '2026-04-20T06:12:00.000Z',
      ended_at: '2026-04-20T06:47:30.000Z',
      link: LINK,
    },
  ],
  // Group status "firing", but each alert keeps its own status.
  'queue-backlog-mixed-batch.json': [
    {
      name: 'Payment queue backlog',
      status: 'firing',
      severity: 'high',
      service: 'Payments',
      resource: 'mq-04.acme.internal',
      fingerprint: '0c9d4e8a7f215b36',
      started_at: '2026-04-20T06:12:00.000Z',
      ended_at: null,
      link: LINK,
    },
    {
      name: 'Payment queue backlog',
      status: 'resolved',
      severity: 'high',
      service: 'Payments',
      resource: 'mq-02.acme.internal',
      fingerprint: '5b7e2c1d90a4f386',
      started_at: '2026-04-20T06:12:00.000Z',
      ended_at: '2026-04-20T06:47:30.000Z',
      link: LINK,
    },
  ],
};

describe('grafana: project fixtures', () => {
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

  it('gives firing and resolved of the same alert the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'queue-backlog-firing.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'queue-backlog-resolved.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });

  it("keeps Grafana's values, URLs, org and version as labels", () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'queue-backlog-firing.json')));
    expect(s?.labels).toMatchObject({
      receiver: 'intake-webhook',
      orgId: '3',
      appVersion: '11.3.1',
      'value.A': '7312',
      valueString: "[ var='A' labels={instance=mq-02.acme.internal} value=7312 ]",
      silenceURL:
        'https://grafana.acme.internal/alerting/silence/new?alertmanager=grafana&matcher=__alert_rule_uid__%3Dfe3kq9x1m0c8wb',
      dashboardURL: 'https://grafana.acme.internal/d/q1Lp0/queues?orgId=3',
      panelURL: 'https://grafana.acme.internal/d/q1Lp0/queues?orgId=3&viewPanel=4',
      grafana_folder: 'Payments',
      queue: 'settlements',
      'annotation.summary': 'Settlement queue backlog on mq-02.acme.internal',
    });
    expect(s?.summary).toBe('Settlement queue backlog on mq-02.acme.internal');
    expect(s?.source).toBe('grafana');
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'docs-v9-webhook-firing-2-alerts.json': [
    {
      name: 'High memory usage',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: 'c6eadffa33fcdf37',
    },
    {
      name: 'High CPU usage',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: 'bc97ff14869b13e3',
    },
  ],
  'keep-test-grafana12-webhook-firing.json': [
    {
      name: 'TestAlert',
      status: 'firing',
      severity: 'unknown',
      service: 'Test Folder',
      resource: 'Grafana',
      fingerprint: 'c4edaaf9f9f839b0',
    },
  ],
  'zulip-v9-mixed-1firing-2resolved.json': [
    {
      name: 'Test alert',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: 'badhost.example.com',
      fingerprint: 'aaafafe0953f0962',
    },
    {
      name: 'Test alert',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: 'otherhost.example.com',
      fingerprint: 'fb31814ac93dbe7d',
    },
    {
      name: 'Second webhook test',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: '6f9cd313db421ef1',
    },
  ],
  'zulip-v9-resolved.json': [
    {
      name: 'Test alert',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: 'd8a21484c9c25a60',
    },
  ],
};

describe.runIf(hasShared)('grafana: shared fixtures', () => {
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

  it('resolves the relative generatorURL of Grafana 12 against externalURL', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'keep-test-grafana12-webhook-firing.json')));
    expect(s?.link).toBe('https://grafana.example.com/?orgId=1');
  });

  it('takes ended_at only from resolved alerts', () => {
    const signals = signalsOf(run(bodyOf(fixtures, 'zulip-v9-mixed-1firing-2resolved.json')));
    expect(signals.map((s) => s.ended_at)).toEqual([
      '2022-06-17T01:08:28.652Z',
      '2022-06-17T01:08:28.652Z',
      null,
    ]);
  });
});

// Detection ------------------------------------------------------------------------------

describe('grafana: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    for (const body of [null, {}, [], 'alerts', { alerts: [], orgId: 1 }, { groupKey: 'k' }]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for Alertmanager groups', () => {
    for (const { body } of [
      ...projectFixtures('alertmanager'),
      ...sharedFixtures('alertmanager'),
    ]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for a Grafana legacy dashboard alert', () => {
    const legacy = { ruleName: 'CPU', ruleId: 3, state: 'alerting', evalMatches: [], orgId: 1 };
    expect(normaliser.detect(legacy, CONTEXT)).toBe(false);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('grafana: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
  });

  it('refuses bodies that are not alert groups', () => {
    expect(() => run({ alerts: 'no', orgId: 1 })).toThrow(NotReadableError);
    expect(() => run({ alerts: [{ status: 'firing' }], orgId: 1 })).toThrow(/alertname/);
  });

  it('without a fingerprint, hashes the label set under its own source name', () => {
    const [s] = signalsOf(
      run({ orgId: 1, alerts: [{ status: 'firing', labels: { alertname: 'A', team: 'x' } }] }),
    );
    expect(s?.fingerprint).toBe(hashOf('grafana', 'alertname=A', 'team=x'));
    expect(s).toMatchObject({ link: null, started_at: RECEIVED, ended_at: null });
  });
});
