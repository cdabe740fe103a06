import { describe, expect, it } from 'vitest';
import { normaliser } from './pingdom.js';
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

const SOURCE = 'pingdom';
const RECEIVED = CONTEXT.receivedAt;
const { run, only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'check-down-high.json': [
    {
      name: 'Checkout API health',
      status: 'firing',
      severity: 'high',
      // check_type "HTTP" is a kind of check, not a service: kept as a label.
      service: null,
      resource: 'checkout.example.net',
      fingerprint: 'pingdom:4172093',
      started_at: '2026-04-01T11:15:00.000Z',
      ended_at: null,
      link: null,
    },
  ],
  'check-up-high.json': [
    {
      name: 'Checkout API health',
      status: 'resolved',
      severity: 'high',
      service: null,
      resource: 'checkout.example.net',
      fingerprint: 'pingdom:4172093',
      // The UP body carries only the time of the change back to UP.
      started_at: '2026-04-01T11:26:00.000Z',
      ended_at: '2026-04-01T11:26:00.000Z',
      link: null,
    },
  ],
  'tcp-down-low-utc-time-only.json': [
    {
      name: 'Mail relay SMTP',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'relay.mail.example.net',
      fingerprint: 'pingdom:4172311',
      // state_changed_utc_time has no zone: UTC.
      started_at: '2026-04-02T03:48:20.000Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('pingdom: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('gives DOWN and UP of the same check the same fingerprint', () => {
    expectPaired(only(project('check-down-high.json')), only(project('check-up-high.json')));
  });

  it('keeps check type, states, probes and tags as labels; long_description is the summary', () => {
    const s = only(project('check-down-high.json'));
    expect(s.labels).toMatchObject({
      check_id: '4172093',
      check_type: 'HTTP',
      current_state: 'DOWN',
      previous_state: 'UP',
      importance_level: 'HIGH',
      description: 'HTTP Error 504',
      full_url: 'https://checkout.example.net/healthz',
      tags: 'prod,checkout',
      first_probe: 'Amsterdam 6, Netherlands',
    });
    expect(s.summary).toBe('HTTP Server Error 504 Gateway Timeout');
  });

  it('fires on FAILING and resolves on SUCCESSFUL (transaction checks); other states are control', () => {
    const body = project('check-down-high.json');
    expect(only({ ...body, current_state: 'FAILING' }).status).toBe('firing');
    expect(only({ ...body, current_state: 'successful' }).status).toBe('resolved');
    expect(run({ ...body, current_state: 'PAUSED' })).toEqual({
      kind: 'control',
      reason: 'pingdom state PAUSED is not a transition',
    });
  });

  it('uses the receive time when the body has no time, and the full URL without a hostname', () => {
    const body = project('tcp-down-low-utc-time-only.json');
    const s = only({
      ...body,
      state_changed_utc_time: '',
      check_params: { full_url: 'https://relay.example.net/' },
    });
    expect(s.started_at).toBe(RECEIVED);
    expect(s.resource).toBe('https://relay.example.net/');
    expect(only({ ...body, importance_level: undefined }).severity).toBe('unknown');
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'alerta-http-down.json': {
    count: 1,
    signals: [
      {
        name: 'Alerta API on OpenShift',
        status: 'firing',
        severity: 'high',
        service: null,
        resource: 'api.alerta.io',
        fingerprint: 'pingdom:803318',
      },
    ],
  },
  'alerta-http-up.json': {
    count: 1,
    signals: [
      {
        name: 'Alerta API on OpenShift',
        status: 'resolved',
        severity: 'high',
        service: null,
        resource: 'api.alerta.io',
        fingerprint: 'pingdom:803318',
      },
    ],
  },
};

describe.runIf(hasShared)('pingdom: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('reads state_changed_timestamp (epoch s) as start, and as end on UP', () => {
    const of = (file: string) => only(fixtures.find((f) => f.file === file)?.body);
    expect(of('alerta-http-down.json').started_at).toBe('2017-06-30T22:25:43.000Z');
    expect(of('alerta-http-up.json').ended_at).toBe('2017-06-30T22:30:43.000Z');
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('pingdom: detect', () => {
  it('recognises every fixture of this source', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const uptimeKuma = {
      heartbeat: { status: 0, msg: 'down' },
      monitor: { id: 3, name: 'API', url: 'https://api.example.com' },
      msg: '[API] [🔴 Down] down',
    };
    const updown = { event: 'check.down', check: { token: 'ab12', url: 'https://x.example' } };
    expectNotDetected(normaliser, [uptimeKuma, updown]);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('pingdom: hostile input', () => {
  it('throws NotReadableError for bodies that are not Pingdom webhooks', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { check_id: 1, check_name: 'c' },
      { check_id: {}, current_state: 'DOWN', check_name: 'c' },
      { check_id: 1, current_state: 'DOWN', check_name: 7 },
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      {
        check_id: 1,
        current_state: 'DOWN',
        check_name: 'c',
        check_params: nested('p', 10_000, {}),
      },
      { check_id: 1, current_state: 'DOWN', check_name: 'c', tags: deepArray(100_000) },
      {
        check_id: 1,
        current_state: 'DOWN',
        check_name: 'c',
        first_probe: nested('location', 10_000, 'x'),
      },
      { check_id: 'x'.repeat(1_000_000), current_state: 'UP', check_name: 'y'.repeat(5_000_000) },
      { check_id: 1, current_state: 'x'.repeat(1_000_000), check_name: 'c' },
      {
        check_id: 1,
        current_state: 'DOWN',
        check_name: 'c',
        state_changed_timestamp: -5,
        tags: [{}, null],
      },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
