import { describe, expect, it } from 'vitest';
import { normaliser } from './zabbix.js';
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

const SOURCE = 'zabbix';
const RECEIVED = CONTEXT.receivedAt;
const { first, project } = readerFor(normaliser);

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
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

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives the problem and its recovery the same fingerprint', () => {
    expectPaired(
      first(project('problem-replication-lag.json')),
      first(project('resolved-replication-lag.json')),
    );
  });

  it('keeps the other template values and tags as labels, not unexpanded macros', () => {
    const s = first(project('problem-replication-lag.json'));
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
    const body = project('problem-replication-lag.json') as object;
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
    for (const [severity, want] of cases) expect(first({ ...body, severity })?.severity).toBe(want);
  });

  it('accepts OK as a recovery and {EVENT.TAGS} as a string', () => {
    const body = {
      ...(project('problem-replication-lag.json') as object),
      status: 'OK',
      tags: 'service:ledger, env:prod',
    };
    expect(first(body)).toMatchObject({
      status: 'resolved',
      service: 'ledger',
      ended_at: RECEIVED,
    });
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
    const s = first(body);
    expect(s?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(s?.service).toBeNull();
  });

  it('falls back to a hash of trigger id and host without an event id', () => {
    const s = first({
      hostname: 'h1',
      trigger: 'Disk full',
      status: 'PROBLEM',
      severity: 'High',
      link: 'https://z/tr_events.php?triggerid=9',
    });
    const again = first({
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
    const body = { ...(project('problem-replication-lag.json') as object), status: 'DISCOVERED' };
    expect(normaliser.normalise(body, CONTEXT)).toEqual({
      kind: 'control',
      reason: 'zabbix status discovered is not a state change',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('uses receive time (the template carries no time)', () => {
    expect(first(fixtures[0]?.body)?.started_at).toBe(RECEIVED);
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -----------------------------------------------------------------------------

describe('zabbix: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
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
    expectNotDetected(normaliser, [alertmanager, checkmk, riemann]);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('zabbix: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      ...UNREADABLE_BODIES,
      { hostname: 'h', status: 'PROBLEM' },
      { trigger: 't' },
      { trigger: '{TRIGGER.NAME}', status: 'PROBLEM' },
      { trigger: ['t'], status: 'PROBLEM' },
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
      { trigger: 't', status: 'PROBLEM', tags: deepArray(100_000) },
      { trigger: 't', status: 'PROBLEM', tags: [nested('tag', 10_000, 'x')] },
      { trigger: 't', status: 'PROBLEM', link: '?' + '&'.repeat(5_000_000) },
      { trigger: 'x'.repeat(5_000_000), status: 'PROBLEM', event_id: 'e'.repeat(5_000) },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP);
  });
});
