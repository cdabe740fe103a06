import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './panther.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'panther';

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
  'rule-high-aws-root-login.json': [
    {
      name: 'AWS Root Console Login',
      status: 'firing',
      severity: 'high',
      service: null,
      resource: null,
      fingerprint: '4c2a9e7f1b3d5a6c8e0f2b4d6a8c0e1f',
      started_at: '2026-04-11T22:14:08.551Z',
      ended_at: null,
      link: 'https://acme.runpanther.net/alerts/4c2a9e7f1b3d5a6c8e0f2b4d6a8c0e1f',
    },
  ],
  'policy-medium-s3-public.json': [
    {
      name: 'S3 Bucket Public Read',
      status: 'firing',
      severity: 'warning',
      service: null,
      // alertContext.resourceId
      resource: 'arn:aws:s3:::acme-exports',
      fingerprint: '0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b',
      started_at: '2026-04-12T06:00:41.000Z',
      ended_at: null,
      link: 'https://acme.runpanther.net/alerts/0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b',
    },
  ],
  'scheduled-rule-critical-no-context.json': [
    {
      name: 'Okta Brute Force',
      status: 'firing',
      severity: 'critical',
      service: null,
      resource: null,
      fingerprint: '7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d',
      started_at: '2026-04-13T01:30:00.000Z',
      ended_at: null,
      link: 'https://acme.runpanther.net/alerts/7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d',
    },
  ],
};

describe('panther: project fixtures', () => {
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

  it('gives a re-delivered alert the same fingerprint', () => {
    const body = bodyOf('rule-high-aws-root-login.json') as object;
    const again = { ...body, title: 'AWS root console login from 203.0.113.10' };
    expect(one(again)?.fingerprint).toBe(one(body)?.fingerprint);
  });

  it('keeps the rule id, tags and alert context as labels; the title as the summary', () => {
    const s = one(bodyOf('rule-high-aws-root-login.json'));
    expect(s?.summary).toBe('AWS root console login from 203.0.113.9');
    expect(s?.labels).toMatchObject({
      rule_id: 'AWS.Console.RootLogin',
      type: 'RULE',
      tags: 'AWS, Identity & Access Management',
      'context.sourceIPAddress': '203.0.113.9',
      'context.account': '381492006711',
      'context.mfaUsed': 'false',
    });
  });

  it('falls back to the rule id when the rule has no name', () => {
    const body = { ...(bodyOf('scheduled-rule-critical-no-context.json') as object), name: '' };
    expect(one(body)?.name).toBe('Okta.BruteForce.Scheduled');
  });
});

// Shared fixtures -----------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
  'nmcgrady-webhook-test-rule-alert.json': {
    count: 1,
    signals: [
      {
        name: 'Monitor Suspicious IPs',
        status: 'firing',
        severity: 'info',
        // Tags are detection categories ("Network Monitoring"), not services.
        service: null,
        resource: null,
        fingerprint: 'b90c19e66e160e194a5b3b94ec27fb7c',
      },
    ],
  },
};

describe.runIf(hasShared)('panther: shared fixtures', () => {
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

  it('keeps tags and alertContext as labels', () => {
    expect(one(fixtures[0]?.body)?.labels).toMatchObject({
      rule_id: 'AllLogs.IPMonitoring',
      tags: 'Network Monitoring, Threat Intel',
      'context.key': 'value',
    });
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

describe('panther: detect', () => {
  it('recognises every fixture of this source', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const alertmanager = { version: '4', groupKey: 'k', status: 'firing', alerts: [] };
    const vrealize = {
      alertId: 'sample-alert-uuid',
      criticality: 'ALERT_CRITICALITY_LEVEL_WARNING',
      status: 'ACTIVE',
      type: 'ALERT_TYPE_APPLICATION_PROBLEM',
    };
    const opsgenie = { action: 'Create', alert: { alertId: 'a' }, severity: 'P1', type: 'RULE' };
    for (const body of [alertmanager, vrealize, opsgenie])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
  });
});

// Hostile input -------------------------------------------------------------------------

describe('panther: hostile input', () => {
  it('throws NotReadableError for bodies that are not this format', () => {
    const bodies: unknown[] = [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { alertId: 'a' },
      { name: 'n' },
      { alertId: ['a'], name: 'n' },
      { alertId: {}, name: 'n' },
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
      {
        alertId: 'a',
        name: 'n',
        alertContext: nested('resource', 10_000, 'r'),
        tags: deepArray(100_000),
      },
      { alertId: 'a', name: 'n', alertContext: { resource: deepArray(100_000) } },
      { alertId: 'a'.repeat(5_000_000), name: 'n'.repeat(5_000_000), title: 't'.repeat(5_000_000) },
    ];
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
