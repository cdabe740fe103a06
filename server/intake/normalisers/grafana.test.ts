import { describe, expect, it } from 'vitest';
import { NotReadableError } from '../signal.js';
import { normaliser } from './grafana.js';
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

const SOURCE = 'grafana';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

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

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives firing and resolved of the same alert the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'queue-backlog-firing.json')),
      first(bodyOf(fixtures, 'queue-backlog-resolved.json')),
    );
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

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
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      'alerts',
      { alerts: [], orgId: 1 },
      { groupKey: 'k' },
    ]);
  });

  it('is false for Alertmanager groups', () => {
    expectFixturesNotDetected(normaliser, allFixtures('alertmanager'));
  });

  it('is false for a Grafana legacy dashboard alert', () => {
    const legacy = { ruleName: 'CPU', ruleId: 3, state: 'alerting', evalMatches: [], orgId: 1 };
    expectNotDetected(normaliser, [legacy]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('grafana: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
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
