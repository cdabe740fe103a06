import { describe, expect, it } from 'vitest';
import { normaliser } from './checkmk.js';
import {
  allFixtures,
  core,
  deepArray,
  expectDetected,
  expectNotDetected,
  expectNotReadable,
  expectOtherSourcesNotDetected,
  expectPaired,
  expectSafe,
  fields,
  fixtureTests,
  hostileSweep,
  nested,
  readerFor,
  SHALLOW_SWEEP_WITHOUT_EDGES,
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

const SOURCE = 'checkmk';
const RECEIVED = CONTEXT.receivedAt;
const { run, only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'host-acknowledgement.json': { control: 'checkmk ACKNOWLEDGEMENT notification' },
  'host-problem-down.json': [
    {
      name: 'Host state',
      status: 'firing',
      severity: 'critical',
      // The site is the monitoring instance, not a service: kept as a label.
      service: null,
      resource: 'edge-fw-02',
      // hashOf('checkmk', 'cmk-dc1', 'edge-fw-02', undefined)
      fingerprint: '1befab83c62aa218b478eaa8ca4d9d36',
      started_at: '2026-03-11T02:17:55.000Z',
      ended_at: null,
      link: 'https://monitoring.example.net/cmk-dc1/check_mk/index.py?start_url=view.py?view_name%3Dhoststatus%26host%3Dedge-fw-02%26site%3Dcmk-dc1',
    },
  ],
  'service-problem-filesystem.json': [
    {
      name: 'Filesystem /var',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: 'app-node-04',
      // hashOf('checkmk', 'cmk-dc1', 'app-node-04', 'Filesystem /var')
      fingerprint: 'a85f3a1b56cad3db77facf63db65a0f1',
      // "Tue Mar 10 14:05:12 CET 2026"
      started_at: '2026-03-10T13:05:12.000Z',
      ended_at: null,
      // A path relative to the Checkmk base URL is no link.
      link: null,
    },
  ],
  'service-recovery-filesystem.json': [
    {
      name: 'Filesystem /var',
      status: 'resolved',
      severity: 'info',
      service: null,
      resource: 'app-node-04',
      fingerprint: 'a85f3a1b56cad3db77facf63db65a0f1',
      started_at: '2026-03-10T14:41:07.000Z',
      ended_at: '2026-03-10T14:41:07.000Z',
      link: null,
    },
  ],
};

describe('checkmk: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives PROBLEM and RECOVERY of the same service the same fingerprint', () => {
    expectPaired(
      only(project('service-problem-filesystem.json')),
      only(project('service-recovery-filesystem.json')),
    );
  });

  it('keeps what, event, site, address and perf data as labels; output is the summary', () => {
    const s = only(project('service-problem-filesystem.json'));
    expect(s.labels).toMatchObject({
      what: 'SERVICE',
      notification_type: 'PROBLEM',
      event: 'WARNING -> CRITICAL',
      state: 'CRITICAL',
      site: 'cmk-dc1',
      address: '10.12.8.44',
      service_description: 'Filesystem /var',
      check_command: 'check_mk-df',
      problem_id: '4182',
    });
    // The service description is not the `service` label the intake reads a service from.
    expect(s.labels['service']).toBeUndefined();
    expect(s.summary).toBe(
      'Used: 97.12% - 48.6 GiB of 50.0 GiB (warn/crit at 85.00%/95.00% used)(!!)',
    );
  });

  it('treats acknowledgements, downtimes, flapping and custom notifications as control', () => {
    const body = project('host-problem-down.json');
    for (const type of [
      'DOWNTIMESTART',
      'DOWNTIMEEND',
      'FLAPPINGSTART',
      'FLAPPINGSTOP',
      'CUSTOM',
    ]) {
      expect(run({ ...body, notification_type: type })).toEqual({
        kind: 'control',
        reason: `checkmk ${type} notification`,
      });
    }
  });

  it('maps host and service states', () => {
    const host = project('host-problem-down.json');
    const service = project('service-problem-filesystem.json');
    expect(
      ['DOWN', 'UNREACH', 'UNREACHABLE', 'UP', 'X'].map(
        (status) => only({ ...host, status }).severity,
      ),
    ).toEqual(['critical', 'warning', 'warning', 'info', 'unknown']);
    expect(
      ['CRIT', 'CRITICAL', 'WARN', 'WARNING', 'UNKNOWN', 'OK'].map(
        (severity) => only({ ...service, severity }).severity,
      ),
    ).toEqual(['critical', 'critical', 'warning', 'warning', 'unknown', 'info']);
  });

  it('prefers micro_time, then the long date with a known zone, else the receive time', () => {
    const body = project('service-problem-filesystem.json');
    expect(only({ ...body, micro_time: '1773147912123456' }).started_at).toBe(
      '2026-03-10T13:05:12.123Z',
    );
    expect(only({ ...body, long_date_time: 'Tue Mar 10 14:05:12 +0530 2026' }).started_at).toBe(
      '2026-03-10T08:35:12.000Z',
    );
    // An ambiguous zone (CST) and short_date_time (no zone) are not trusted.
    expect(only({ ...body, long_date_time: 'Tue Mar 10 14:05:12 CST 2026' }).started_at).toBe(
      RECEIVED,
    );
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'keep-webhook-script-host-recovery.json': {
    count: 1,
    signals: [
      {
        name: 'Host state',
        status: 'resolved',
        severity: 'info',
        service: null,
        resource: 'server1',
        // hashOf('checkmk', 'cmk', 'server1', undefined)
        fingerprint: '4ece33cf359703c1c9ad1173c2aac59a',
      },
    ],
  },
};

describe.runIf(hasShared)('checkmk: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('reads long_date_time ("Sat Oct 26 23:20:39 UTC 2024") as start and end', () => {
    const s = only(fixtures.find((f) => f.file === 'keep-webhook-script-host-recovery.json')?.body);
    expect(s).toMatchObject({
      started_at: '2024-10-26T23:20:39.000Z',
      ended_at: '2024-10-26T23:20:39.000Z',
    });
    expect(s.link).toBeNull();
    expect(s.labels['url']).toBe(
      '/check_mk/index.py?start_url=view.py?view_name%3Dhoststatus%26host%3Dserver1%26site%3Dcmk',
    );
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('checkmk: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const zabbix = {
      hostname: 'db-1',
      trigger: 'Replication lag',
      status: 'PROBLEM',
      severity: 'High',
    };
    const riemann = { host: 'db-1', service: 'cpu', state: 'critical', metric: 0.9 };
    expectNotDetected(normaliser, [zabbix, riemann]);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('checkmk: hostile input', () => {
  it('throws NotReadableError for bodies that are not Checkmk notifications', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { what: 'HOST' },
      { what: 'NODE', notification_type: 'PROBLEM', host: 'h' },
      { what: 'HOST', notification_type: 'PROBLEM' },
      { what: 'SERVICE', notification_type: 'PROBLEM', host: 'h' },
      { what: 'HOST', notification_type: 7, host: 'h' },
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const base = { what: 'SERVICE', notification_type: 'PROBLEM', host: 'h', service: 's' };
    const bodies: unknown[] = [
      { ...base, output: nested('o', 10_000, {}), site: nested('s', 10_000, 'x') },
      { ...base, perf_data: deepArray(100_000), event: deepArray(100_000) },
      {
        ...base,
        host: 'x'.repeat(5_000_000),
        service: 'y'.repeat(5_000_000),
        output: 'z'.repeat(5_000_000),
      },
      {
        ...base,
        long_date_time: 'Xyz Foo 99 99:99:99 UTC 2026',
        micro_time: 'x',
        url: 'x'.repeat(100_000),
      },
      { ...base, long_date_time: 'x'.repeat(1_000_000), notification_type: 'x'.repeat(1_000_000) },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
