import { describe, expect, it } from 'vitest';
import { normaliser } from './uptime-kuma.js';
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
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'uptime-kuma';
const { run, only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
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

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives DOWN and UP of the same monitor the same fingerprint', () => {
    expectPaired(only(project('http-down.json')), only(project('http-up.json')));
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
    expect(run({ ...body, heartbeat: { ...heartbeat, status: 2 } })).toEqual({
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

const SHARED: Record<string, CountedWant<Core>> = {
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('reads localDateTime with timezoneOffset, and ends UP at that time', () => {
    const of = (file: string) => only(fixtures.find((f) => f.file === file)?.body);
    expect(of('keep-test-trimmed-port-down-firing.json').started_at).toBe(
      '2022-08-26T01:02:24.000Z',
    );
    expect(of('keep-test-trimmed-up-resolved.json').ended_at).toBe('2022-08-26T01:02:24.000Z');
    expect(of('keep-test-trimmed-up-resolved.json').link).toBe('https://example.com');
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('uptime-kuma: detect', () => {
  it('recognises every fixture of this source, the test notification included', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      'x',
      42,
      { msg: 'hello' },
      { heartbeat: null, msg: 'x' },
    ]);
    const pingdom = { check_id: 1, check_name: 'API', current_state: 'DOWN', check_type: 'HTTP' };
    expectNotDetected(normaliser, [pingdom]);
  });

  it('answers to the uptimekuma and kuma aliases', () => {
    expect(normaliser.aliases).toEqual(expect.arrayContaining(['uptimekuma', 'kuma']));
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('uptime-kuma: hostile input', () => {
  it('throws NotReadableError for bodies that are not Uptime Kuma notifications', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { heartbeat: { status: 0 }, msg: 'x' },
      { heartbeat: 'x', monitor: { id: 1, name: 'm' } },
      { heartbeat: { status: 'down' }, monitor: { id: 1, name: 'm' } },
      { heartbeat: { status: 0 }, monitor: { url: 'https://x.example' } },
    ]);
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
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
