import { describe, expect, it } from 'vitest';
import { normaliser } from './splunk.js';
import {
  allFixtures,
  core,
  deepArray,
  expectDetected,
  expectNotDetected,
  expectNotReadable,
  expectOtherSourcesNotDetected,
  expectSafe,
  fields,
  fixtureTests,
  hostileSweep,
  nested,
  readerFor,
  SHALLOW_SWEEP,
  UNREADABLE_BODIES,
  type Core,
  type Fields,
  type Want,
  type CountedWant,
} from '../../testing/intake/normaliser-harness.js';
import {
  CONTEXT,
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'splunk';
const RECEIVED = CONTEXT.receivedAt;
const { first, project } = readerFor(normaliser);

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'saved-search-failed-ssh-logins.json': [
    {
      name: 'Failed SSH logins over threshold',
      status: 'firing',
      severity: 'unknown',
      service: 'secops',
      resource: 'bastion-eu-2',
      // hashOf('splunk', search_name, result.host)
      fingerprint: '8fa5bc94e8db44da8c8fab07113ba96a',
      started_at: '2026-02-25T08:39:02.000Z',
      ended_at: null,
      link: 'https://splunk.acme.example:8000/app/secops/search?q=%7Cloadjob%20scheduler__secops__search__RMD5a1b2c3d4e5f60718_at_1772008800_4411%20%7C%20head%201%20%7C%20tail%201&earliest=0&latest=now',
    },
  ],
  'saved-search-no-host-iso-time.json': [
    {
      name: 'Payment batch not received',
      status: 'firing',
      severity: 'unknown',
      service: 'finance',
      resource: null,
      // hashOf('splunk', search_name, undefined)
      fingerprint: '944e862d20312b419e2a9688900b9020',
      started_at: '2026-02-26T05:15:00.000Z',
      ended_at: null,
      link: 'https://splunk.acme.example:8000/app/finance/search?q=%7Cloadjob%20scheduler__admin__finance__RMD5ff00ee11dd22cc33_at_1772100000_908',
    },
  ],
};

describe('splunk: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('fingerprints by search and host, not by the run', () => {
    const body = project('saved-search-failed-ssh-logins.json') as { result: object };
    const firstRun = first(body);
    const nextRun = first({
      ...body,
      sid: 'scheduler__secops__search__RMD5a1b2c3d4e5f60718_at_1772012400_4420',
      result: { ...body.result, _time: '1772012345', count: '71' },
    });
    expect(nextRun?.fingerprint).toBe(firstRun?.fingerprint);
    expect(nextRun?.started_at).toBe('2026-02-25T09:39:05.000Z');
    const otherHost = first({ ...body, result: { ...body.result, host: 'bastion-eu-3' } });
    expect(otherHost?.fingerprint).not.toBe(firstRun?.fingerprint);
  });

  it('keeps the result row without Splunk internals, _raw as the summary', () => {
    const s = first(project('saved-search-failed-ssh-logins.json'));
    expect(s?.summary).toBe(
      'Feb 25 08:39:02 bastion-eu-2 sshd[22817]: Failed password for root from 203.0.113.77 port 51122 ssh2',
    );
    expect(s?.labels).toEqual({
      search_name: 'Failed SSH logins over threshold',
      sid: 'scheduler__secops__search__RMD5a1b2c3d4e5f60718_at_1772008800_4411',
      owner: 'svc_alerting',
      'result.host': 'bastion-eu-2',
      'result.source': '/var/log/secure',
      'result.sourcetype': 'linux_secure',
      'result.index': 'os',
      'result.src_ip': '203.0.113.77',
      'result.user': 'root',
      'result.count': '58',
    });
  });

  it('reads a body without a result row, at receive time', () => {
    const body = { ...(project('saved-search-no-host-iso-time.json') as object), result: null };
    expect(first(body)).toMatchObject({
      resource: null,
      started_at: RECEIVED,
      summary: 'Payment batch not received',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'zulip-saved-search-alert-one-result.json': {
    count: 1,
    signals: [
      {
        name: 'sudo',
        status: 'firing',
        severity: 'unknown',
        service: 'search',
        resource: 'myserver',
        // hashOf('splunk', 'sudo', 'myserver')
        fingerprint: '91b437332ceecbeaa484795a66be64ea',
      },
    ],
  },
};

describe.runIf(hasShared)('splunk: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('starts at result._time (epoch seconds as a string)', () => {
    expect(first(fixtures[0]?.body)?.started_at).toBe('2017-01-04T19:14:32.000Z');
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('splunk: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const graylog = { event_definition_id: 'x', event: { message: 'm' } };
    expectNotDetected(normaliser, [
      alertmanager,
      graylog,
      { search_name: 's', sid: 1, results_link: 'x' },
    ]);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('splunk: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { sid: 's', results_link: 'x' },
      { search_name: true },
      { search_name: ['s'] },
      { search_name: 's', result: 'row' },
      { search_name: 's', result: [1] },
    ];
    expectNotReadable(normaliser, bodies);
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      { alerts: 'no' },
      { search_name: 's', result: nested('host', 10_000, 'h') },
      { search_name: 's', result: { _si: deepArray(100_000), host: deepArray(100_000) } },
      { search_name: 'x'.repeat(5_000_000), result: { _raw: 'y'.repeat(5_000_000) } },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });
});
