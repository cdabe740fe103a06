import { describe, expect, it } from 'vitest';
import { normaliser } from './datadog.js';
import {
  allFixtures,
  bodyOf,
  core,
  DEEP_SWEEP,
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

const SOURCE = 'datadog';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

// Project fixtures -----------------------------------------------------------------------

// The monitor id plus the alert scope: the same for the trigger and the recovery.
const WEB_07 = hashOf('datadog', 'monitor', '90412377', 'host:web-07,env:prod');

const PROJECT: Record<string, Want<Fields>> = {
  // Custom template: transition, priority P2 → high, service tag, hostname.
  'custom-triggered-p2.json': [
    {
      name: 'Web p95 latency high on web-07',
      status: 'firing',
      severity: 'high',
      service: 'storefront-web',
      resource: 'web-07',
      fingerprint: WEB_07,
      started_at: '2026-05-07T10:42:00.000Z',
      ended_at: null,
      link: 'https://app.datadoghq.eu/event/event?id=7412098455103829051',
    },
  ],
  // The body has no start time: the recovery's date is both start and end.
  'custom-recovered.json': [
    {
      name: 'Web p95 latency high on web-07',
      status: 'resolved',
      severity: 'high',
      service: 'storefront-web',
      resource: 'web-07',
      fingerprint: WEB_07,
      started_at: '2026-05-07T11:11:50.000Z',
      ended_at: '2026-05-07T11:11:50.000Z',
      link: 'https://app.datadoghq.eu/event/event?id=7412098455123617734',
    },
  ],
  // Default template: "[Warn on {host:cache-02}]" gives status, severity, scope and host;
  // the monitor id and link come from the markdown body.
  'default-warn-redis-memory.json': [
    {
      name: 'Redis memory usage high',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'cache-02',
      fingerprint: hashOf('datadog', 'monitor', '55102931', 'host:cache-02'),
      started_at: '2026-05-05T17:48:41.000Z',
      ended_at: null,
      link: 'https://app.datadoghq.com/monitors#55102931',
    },
  ],
};

describe('datadog: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives Triggered and Recovered of the same monitor and scope the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'custom-triggered-p2.json')),
      first(bodyOf(fixtures, 'custom-recovered.json')),
    );
  });

  it('gives the default template the same fingerprint when it recovers', () => {
    const body = bodyOf(fixtures, 'default-warn-redis-memory.json') as object;
    const recovered = { ...body, title: '[Recovered on {host:cache-02}] Redis memory usage high' };
    const [firing] = signalsOf(run(body));
    const [resolved] = signalsOf(run(recovered));
    expect(resolved).toMatchObject({ status: 'resolved', name: 'Redis memory usage high' });
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });

  it('splits tags into labels and keeps monitor, transition and org', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'custom-triggered-p2.json')));
    expect(s?.labels).toMatchObject({
      env: 'prod',
      service: 'storefront-web',
      host: 'web-07',
      team: 'web',
      monitor_id: '90412377',
      transition: 'Triggered',
      alert_type: 'error',
      alert_priority: 'P2',
      alert_scope: 'host:web-07,env:prod',
      org_id: '8812203',
      org_name: 'Acme',
    });
    expect(s?.summary).toBe('p95 latency above 800ms on web-07');
  });

  it('reads No Data as firing with severity info', () => {
    const body = bodyOf(fixtures, 'custom-triggered-p2.json') as object;
    const [s] = signalsOf(run({ ...body, alert_transition: 'No Data' }));
    expect(s).toMatchObject({ status: 'firing', severity: 'info' });
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  // alert_title keeps "[TEST]"; the host tag is the scope; alert_type error → high.
  'port-custom-template-triggered.json': [
    {
      name: '[TEST] api-service with IP 172.19.128.1 have exceeded memory limit',
      status: 'firing',
      severity: 'high',
      service: 'api-service',
      resource: 'api-service',
      fingerprint: hashOf('datadog', 'monitor', '147793', 'api-service'),
    },
  ],
  // Default template: "[Triggered]" stripped; the monitor id from "monitors#18692904".
  'relay-default-template-triggered-test.json': [
    {
      name: '[TEST] Host Cluster Alert',
      status: 'firing',
      severity: 'unknown',
      service: null,
      resource: null,
      fingerprint: hashOf('datadog', 'monitor', '18692904', undefined),
    },
  ],
};

describe.runIf(hasShared)('datadog: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

  it('reads the epoch-ms date string and links the monitor of a default body', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'relay-default-template-triggered-test.json')));
    expect(s).toMatchObject({
      started_at: '2020-06-03T20:43:05.000Z',
      link: 'https://app.datadoghq.com/monitors#18692904',
    });
  });
});

// Detection ------------------------------------------------------------------------------

describe('datadog: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      { event_type: 'x' },
      { event_type: 'x', org_id: '1' },
    ]);
  });

  it('is false for a Suricata EVE alert and a New Relic legacy incident', () => {
    const suricata = {
      event_type: 'alert',
      src_ip: '10.0.0.1',
      dest_ip: '10.0.0.2',
      org_id: '1',
      date: '2026-01-01',
    };
    const newrelic = { event_type: 'INCIDENT', incident_id: 7, current_state: 'open' };
    expectNotDetected(normaliser, [suricata, newrelic]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('datadog: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
  });

  it('refuses a body without a title', () => {
    expect(() => run({ event_type: 'x', org_id: '1', date: '1' })).toThrow(/title/);
  });

  it('keys a body without monitor id by its title and scope; alert_type success resolves', () => {
    const [s] = signalsOf(run({ title: '[P1] Disk full', alert_type: 'success', tags: 'host:a' }));
    expect(s).toMatchObject({
      name: 'Disk full',
      status: 'resolved',
      severity: 'critical',
      resource: 'a',
      fingerprint: hashOf('datadog', 'title', 'Disk full', 'a'),
      started_at: RECEIVED,
      ended_at: RECEIVED,
    });
  });

  it('scans only the start of a huge markdown body', () => {
    const body = `%%%${'[x](http://a/'.repeat(200_000)}monitors#1 %%%`;
    const [s] = signalsOf(run({ title: 't', body }));
    expect(s?.link).toBeNull();
    expect(s?.labels['monitor_id']).toBeUndefined();
  });
});
