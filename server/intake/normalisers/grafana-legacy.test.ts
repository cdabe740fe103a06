import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './grafana-legacy.js';
import { hashOf } from './read.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'grafana-legacy';
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

const RULE = hashOf('grafana-legacy', 'rule', '2', '41');
const RULE_URL =
  'https://grafana-old.acme.internal/d/pgRepl/postgres-replication?tab=alert&viewPanel=6&orgId=2';

// The body carries no time: started_at is the receive time, and so is ended_at on ok.
const PROJECT: Record<string, Want<Fields>> = {
  'replica-lag-alerting.json': [
    {
      name: 'Reporting replica lag',
      status: 'firing',
      severity: 'critical',
      service: 'reporting-db',
      resource: 'pg-report-02:9187',
      fingerprint: RULE,
      started_at: RECEIVED,
      ended_at: null,
      link: RULE_URL,
    },
  ],
  'replica-lag-ok.json': [
    {
      name: 'Reporting replica lag',
      status: 'resolved',
      severity: 'critical',
      service: 'reporting-db',
      resource: null,
      fingerprint: RULE,
      started_at: RECEIVED,
      ended_at: RECEIVED,
      link: RULE_URL,
    },
  ],
  // no_data → firing with severity info; no instance tag → the metric is the resource.
  'replica-lag-no-data.json': [
    {
      name: 'Reporting replica lag',
      status: 'firing',
      severity: 'info',
      service: 'reporting-db',
      resource: 'pg_replication_lag_seconds',
      fingerprint: RULE,
      started_at: RECEIVED,
      ended_at: null,
      link: RULE_URL,
    },
  ],
  'replica-lag-pending.json': { control: 'Grafana legacy alert state pending' },
};

describe('grafana-legacy: project fixtures', () => {
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

  it('gives alerting and ok of the same rule the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'replica-lag-alerting.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'replica-lag-ok.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });

  it('reads paused as a control message too', () => {
    const body = bodyOf(fixtures, 'replica-lag-pending.json') as object;
    expect(run({ ...body, state: 'paused' })).toEqual({
      kind: 'control',
      reason: 'Grafana legacy alert state paused',
    });
  });

  it('keeps rule tags, eval matches and ids as labels', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'replica-lag-alerting.json')));
    expect(s?.labels).toEqual({
      ruleId: '41',
      orgId: '2',
      dashboardId: '14',
      panelId: '6',
      title: '[Alerting] Reporting replica lag',
      imageUrl: 'https://grafana-old.acme.internal/public/img/attachments/Xk2p9QdLw7.png',
      'evalMatch.0.metric': 'pg_replication_lag_seconds',
      'evalMatch.0.value': '412.5',
      'evalMatch.0.tags.instance': 'pg-report-02:9187',
      'evalMatch.0.tags.job': 'postgres',
      severity: 'critical',
      service: 'reporting-db',
      env: 'prod',
    });
    expect(s?.summary).toBe('Replication lag on the reporting replica is above 300 s');
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'alerta-grafana6-alerting-rule-tags.json': [
    {
      name: 'Testing -> Battery Voltage alert',
      status: 'firing',
      severity: 'warning',
      service: 'Physical',
      resource: 'Battery Voltage (millivolts)',
      fingerprint: hashOf('grafana-legacy', 'rule', '', '58'),
    },
  ],
  'alerta-legacy-alerting-with-tags.json': [
    {
      name: 'Zeta CPU alert',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: 'zeta.domain',
      fingerprint: hashOf('grafana-legacy', 'rule', '', '7'),
    },
  ],
  'alerta-legacy-ok.json': [
    {
      name: 'Zeta CPU alert',
      status: 'resolved',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: hashOf('grafana-legacy', 'rule', '', '7'),
    },
  ],
  // ruleId 0 (a test notification): the rule name is the key.
  'zulip-legacy-dashboard-alert-alerting.json': [
    {
      name: 'Test rule',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: 'High value',
      fingerprint: hashOf('grafana-legacy', 'name', 'Test rule'),
    },
  ],
};

describe.runIf(hasShared)('grafana-legacy: shared fixtures', () => {
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

  it('gives alerting and ok of rule 7 the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'alerta-legacy-alerting-with-tags.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'alerta-legacy-ok.json')));
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });
});

// Detection ------------------------------------------------------------------------------

describe('grafana-legacy: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    for (const body of [null, {}, [], { ruleName: 'x' }, { ruleName: 'x', state: 'ok' }]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for a Grafana unified alerting group', () => {
    for (const { body } of projectFixtures('grafana')) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for a New Relic legacy incident', () => {
    const newrelic = {
      incident_id: 73,
      current_state: 'open',
      condition_name: 'CPU',
      policy_name: 'Hosts',
      state: 'open',
    };
    expect(normaliser.detect(newrelic, CONTEXT)).toBe(false);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('grafana-legacy: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
  });

  it('refuses a body without ruleName or with an unknown state', () => {
    expect(() => run({ state: 'alerting', ruleId: 1 })).toThrow(/ruleName/);
    expect(() => run({ ruleName: 'r', ruleId: 1 })).toThrow(/state/);
    expect(() => run({ ruleName: 'r', state: 'exploded' })).toThrow(NotReadableError);
  });

  it('copes with a huge evalMatches list', () => {
    const matches = Array.from({ length: 200_000 }, (_, i) => ({ metric: `m${String(i)}` }));
    const [s] = signalsOf(run({ ruleName: 'r', state: 'alerting', evalMatches: matches }));
    expect(s?.resource).toBe('m0');
  });
});
