import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './splunk.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'splunk';
const RECEIVED = CONTEXT.receivedAt;

type Fields = Pick<
  Signal,
  | 'name'
  | 'status'
  | 'severity'
  | 'service'
  | 'resource'
  | 'fingerprint'
  | 'started_at'
  | 'ended_at'
  | 'link'
>;
type Core = Pick<Signal, 'name' | 'status' | 'severity' | 'service' | 'resource' | 'fingerprint'>;
type Control = { readonly control: string };

const fields = (s: Signal): Fields => ({
  name: s.name,
  status: s.status,
  severity: s.severity,
  service: s.service,
  resource: s.resource,
  fingerprint: s.fingerprint,
  started_at: s.started_at,
  ended_at: s.ended_at,
  link: s.link,
});
const core = ({ name, status, severity, service, resource, fingerprint }: Signal): Core => ({
  name,
  status,
  severity,
  service,
  resource,
  fingerprint,
});

function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

const bodyOf = (file: string): unknown =>
  projectFixtures(SOURCE).find((f) => f.file === file)?.body;
const one = (body: unknown): Signal | undefined =>
  signalsOf(normaliser.normalise(body, CONTEXT))[0];

/** Either a result or NotReadableError; never another exception. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  try {
    const r = normaliser.normalise(body, CONTEXT);
    if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
    else expect(typeof r.reason).toBe('string');
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
  }
}

/** Copies of body with the value at each path (to depth 3) replaced by a wrong type. */
function* mutations(body: unknown, depth = 3): Generator<unknown> {
  const WRONG: unknown[] = [null, 42, -1, '', 'x', [], {}, true, 'x'.repeat(100_000)];
  if (depth === 0 || typeof body !== 'object' || body === null) return;
  const entries = Array.isArray(body) ? body.map((v, i) => [i, v] as const) : Object.entries(body);
  for (const [k, v] of entries.slice(0, 40)) {
    const copy = (x: unknown): unknown =>
      Array.isArray(body)
        ? Object.assign([...(body as unknown[])], { [k]: x })
        : { ...body, [k]: x };
    for (const w of WRONG) yield copy(w);
    for (const m of mutations(v, depth - 1)) yield copy(m);
  }
}

function nested(key: string, levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { [key]: v };
  return v;
}

function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

// Project fixtures ----------------------------------------------------------------------

const PROJECT: Record<string, readonly Fields[] | Control> = {
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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = PROJECT[file];
      const got = normaliser.normalise(body, CONTEXT);
      if (want !== undefined && 'control' in want)
        expect(got).toEqual({ kind: 'control', reason: want.control });
      else expect(signalsOf(got).map(fields)).toEqual(want);
    });
  }

  it('fingerprints by search and host, not by the run', () => {
    const body = bodyOf('saved-search-failed-ssh-logins.json') as { result: object };
    const first = one(body);
    const nextRun = one({
      ...body,
      sid: 'scheduler__secops__search__RMD5a1b2c3d4e5f60718_at_1772012400_4420',
      result: { ...body.result, _time: '1772012345', count: '71' },
    });
    expect(nextRun?.fingerprint).toBe(first?.fingerprint);
    expect(nextRun?.started_at).toBe('2026-02-25T09:39:05.000Z');
    const otherHost = one({ ...body, result: { ...body.result, host: 'bastion-eu-3' } });
    expect(otherHost?.fingerprint).not.toBe(first?.fingerprint);
  });

  it('keeps the result row without Splunk internals, _raw as the summary', () => {
    const s = one(bodyOf('saved-search-failed-ssh-logins.json'));
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
    const body = { ...(bodyOf('saved-search-no-host-iso-time.json') as object), result: null };
    expect(one(body)).toMatchObject({
      resource: null,
      started_at: RECEIVED,
      summary: 'Payment batch not received',
    });
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = SHARED[file];
      const got = normaliser.normalise(body, CONTEXT);
      if (want === undefined || 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want?.control });
        return;
      }
      const signals = signalsOf(got);
      expect(signals).toHaveLength(want.count);
      expect(signals.map(core)).toEqual(want.signals);
    });
  }

  it('starts at result._time (epoch seconds as a string)', () => {
    expect(one(fixtures[0]?.body)?.started_at).toBe('2017-01-04T19:14:32.000Z');
  });

  it('does not detect the shared fixtures of other sources', () => {
    for (const other of sharedSources().filter((s) => s !== SOURCE)) {
      for (const { file, body } of sharedFixtures(other)) {
        expect(normaliser.detect(body, CONTEXT), `${other}/${file}`).toBe(false);
      }
    }
  });
});

// Detection -----------------------------------------------------------------------------

describe('splunk: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const graylog = { event_definition_id: 'x', event: { message: 'm' } };
    expect(normaliser.detect(alertmanager, CONTEXT)).toBe(false);
    expect(normaliser.detect(graylog, CONTEXT)).toBe(false);
    expect(normaliser.detect({ search_name: 's', sid: 1, results_link: 'x' }, CONTEXT)).toBe(false);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('splunk: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { sid: 's', results_link: 'x' },
      { search_name: true },
      { search_name: ['s'] },
      { search_name: 's', result: 'row' },
      { search_name: 's', result: [1] },
    ];
    for (const body of bodies)
      expect(() => normaliser.normalise(body, CONTEXT)).toThrow(NotReadableError);
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
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
