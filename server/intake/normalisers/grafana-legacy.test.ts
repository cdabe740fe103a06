import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './grafana-legacy.js';
import {
  allFixtures,
  bodyOf,
  core,
  DEEP_SWEEP,
  expectFixturesNotDetected,
  expectNotDetected,
  expectPaired,
  expectSafe,
  fields,
  fixtureTests,
  hostileBodies,
  hostileSweep,
  readerFor,
  type Core,
  type Fields,
  type Want,
} from '../../testing/intake/normaliser-harness.js';
import { hashOf } from './read.js';
import {
  CONTEXT,
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'grafana-legacy';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

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

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives alerting and ok of the same rule the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'replica-lag-alerting.json')),
      first(bodyOf(fixtures, 'replica-lag-ok.json')),
    );
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

  it('gives alerting and ok of rule 7 the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'alerta-legacy-alerting-with-tags.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'alerta-legacy-ok.json')));
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });
});

// Detection ------------------------------------------------------------------------------

describe('grafana-legacy: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      { ruleName: 'x' },
      { ruleName: 'x', state: 'ok' },
    ]);
  });

  it('is false for a Grafana unified alerting group', () => {
    expectFixturesNotDetected(normaliser, projectFixtures('grafana'));
  });

  it('is false for a New Relic legacy incident', () => {
    const newrelic = {
      incident_id: 73,
      current_state: 'open',
      condition_name: 'CPU',
      policy_name: 'Hosts',
      state: 'open',
    };
    expectNotDetected(normaliser, [newrelic]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('grafana-legacy: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
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
