// Noise control as pure functions: matchers, wildcards, maintenance windows at their edges,
// inhibition and grouping keys.
import { describe, expect, it } from 'vitest';
import { checkPolicy, DEFAULT_POLICY, type Policy, type PolicyInput } from './policy.schemas.js';
import {
  groupKey,
  inhibitorFor,
  keyValue,
  maintenanceFor,
  matches,
  wildcardMatch,
  type FiringSignal,
  type SignalFacts,
} from './suppression.js';

const signal = (over: Partial<SignalFacts> = {}): SignalFacts => ({
  source: 'alertmanager',
  name: 'HighLatency',
  severity: 'warning',
  service: 'payments',
  resource: 'pay-1',
  labels: { host: 'node-1', team: 'pay', env: 'prod' },
  ...over,
});
const firing = (fingerprint: string, over: Partial<SignalFacts> = {}): FiringSignal => ({
  ...signal(over),
  fingerprint,
});
const policy = (input: PolicyInput): Policy => checkPolicy(input);
const at = (iso: string): number => Date.parse(iso);

describe('keyValue', () => {
  it('reads alertname, the signal fields and labels', () => {
    const s = signal({ labels: { host: 'node-1', severity: 'label-severity' } });
    expect(keyValue(s, 'alertname')).toBe('HighLatency');
    expect(keyValue(s, 'service')).toBe('payments');
    expect(keyValue(s, 'severity')).toBe('warning');
    expect(keyValue(s, 'source')).toBe('alertmanager');
    expect(keyValue(s, 'resource')).toBe('pay-1');
    expect(keyValue(s, 'host')).toBe('node-1');
  });

  it('is undefined for a missing label, a null resource and inherited properties', () => {
    const s = signal({ resource: null });
    expect(keyValue(s, 'resource')).toBeUndefined();
    expect(keyValue(s, 'region')).toBeUndefined();
    expect(keyValue(s, 'constructor')).toBeUndefined();
    expect(keyValue(s, 'toString')).toBeUndefined();
    expect(keyValue(s, 'name')).toBeUndefined(); // a label, not the signal's name
  });
});

describe('wildcardMatch', () => {
  it.each([
    ['payments', 'payments', true],
    ['payments', 'Payments', false],
    ['payments', 'payments-api', false],
    ['*', '', true],
    ['*', 'anything', true],
    ['pay-*', 'pay-api', true],
    ['pay-*', 'pay-', true],
    ['pay-*', 'pay', false],
    ['*-db', 'orders-db', true],
    ['*-db', 'orders-db-2', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'a-b-b-c', true],
    ['a*b*c', 'a-c-b', false],
    ['**', 'x', true],
    ['a.c', 'abc', false], // no regular-expression meaning
    ['(x)', '(x)', true],
  ])('%s against %s: %s', (pattern, value, expected) => {
    expect(wildcardMatch(pattern, value)).toBe(expected);
  });

  it('stays fast on many stars against a long value', () => {
    const started = performance.now();
    expect(wildcardMatch(`${'*a'.repeat(40)}*b`, 'a'.repeat(5000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('matches', () => {
  it('needs every key to be present and to match', () => {
    expect(matches({ alertname: 'HighLatency', team: 'pay' }, signal())).toBe(true);
    expect(matches({ alertname: 'HighLatency', team: 'web' }, signal())).toBe(false);
    expect(matches({ severity: 'warn*' }, signal())).toBe(true);
    expect(matches({ service: 'pay*', env: 'prod' }, signal())).toBe(true);
  });

  it('is case-sensitive', () => {
    expect(matches({ alertname: 'highlatency' }, signal())).toBe(false);
  });

  it('does not let * match an absent key', () => {
    expect(matches({ region: '*' }, signal())).toBe(false);
    expect(matches({ resource: '*' }, signal({ resource: null }))).toBe(false);
    expect(matches({ host: '*' }, signal())).toBe(true);
  });

  it('holds for no matchers', () => {
    expect(matches({}, signal())).toBe(true);
  });
});

describe('maintenanceFor', () => {
  const p = policy({
    maintenance: [
      {
        name: 'db-upgrade',
        services: ['payments', 'pay-*'],
        starts: '2026-11-22T01:00:00Z',
        ends: '2026-11-22T03:00:00Z',
        reason: 'planned upgrade',
      },
    ],
  });

  it('starts inclusive and ends exclusive', () => {
    const s = signal();
    expect(maintenanceFor(p, s, at('2026-11-22T00:59:59.999Z'))).toBeNull();
    expect(maintenanceFor(p, s, at('2026-11-22T01:00:00Z'))).toEqual({
      name: 'db-upgrade',
      ends: '2026-11-22T03:00:00.000Z',
      reason: 'planned upgrade',
    });
    expect(maintenanceFor(p, s, at('2026-11-22T02:59:59.999Z'))).not.toBeNull();
    expect(maintenanceFor(p, s, at('2026-11-22T03:00:00Z'))).toBeNull();
  });

  it('matches services with wildcards, and only those', () => {
    const now = at('2026-11-22T02:00:00Z');
    expect(maintenanceFor(p, signal({ service: 'pay-api' }), now)?.name).toBe('db-upgrade');
    expect(maintenanceFor(p, signal({ service: 'orders' }), now)).toBeNull();
    expect(maintenanceFor(p, signal({ service: 'Payments' }), now)).toBeNull();
  });

  it('reads windows written with other zones', () => {
    const q = policy({
      maintenance: [
        {
          name: 'cet',
          services: ['*'],
          starts: '2026-11-22T02:00:00+01:00',
          ends: '2026-11-22T04:00:00+01:00',
        },
      ],
    });
    expect(maintenanceFor(q, signal(), at('2026-11-22T00:59:59Z'))).toBeNull();
    expect(maintenanceFor(q, signal(), at('2026-11-22T01:00:00Z'))).toEqual({
      name: 'cet',
      ends: '2026-11-22T03:00:00.000Z',
      reason: null,
    });
  });

  it('requires the optional match to hold as well', () => {
    const q = policy({
      maintenance: [
        {
          name: 'warnings-only',
          services: ['*'],
          starts: '2026-11-22T01:00:00Z',
          ends: '2026-11-22T03:00:00Z',
          match: { severity: 'warning', host: 'node-*' },
        },
      ],
    });
    const now = at('2026-11-22T02:00:00Z');
    expect(maintenanceFor(q, signal(), now)?.name).toBe('warnings-only');
    expect(maintenanceFor(q, signal({ severity: 'critical' }), now)).toBeNull();
    expect(maintenanceFor(q, signal({ labels: {} }), now)).toBeNull();
  });

  it('gives the window that ends last when several hold', () => {
    const windows = ['01', '05', '04'].map((h, i) => ({
      name: `w${String(i)}`,
      services: ['*'],
      starts: '2026-11-22T00:00:00Z',
      ends: `2026-11-22T${h}:00:00Z`,
    }));
    const q = policy({ maintenance: [...windows, { ...windows[1]!, name: 'tie' }] });
    expect(maintenanceFor(q, signal(), at('2026-11-22T00:30:00Z'))?.name).toBe('w1');
    expect(maintenanceFor(q, signal(), at('2026-11-22T04:30:00Z'))?.name).toBe('w1');
    expect(maintenanceFor(q, signal(), at('2026-11-22T05:00:00Z'))).toBeNull();
  });

  it('finds nothing in the default policy', () => {
    expect(maintenanceFor(DEFAULT_POLICY, signal(), Date.now())).toBeNull();
  });
});

describe('inhibitorFor', () => {
  const p = policy({
    inhibit: [
      {
        name: 'node-down-hides-its-alerts',
        source: { alertname: 'NodeDown' },
        target: { severity: 'warning' },
        equal: ['host'],
      },
    ],
  });
  const nodeDown = (host: string, fp = `nd-${host}`) =>
    firing(fp, { name: 'NodeDown', severity: 'critical', labels: { host } });

  it('inhibits a target when a firing source has the same equal labels', () => {
    expect(inhibitorFor(p, signal(), [nodeDown('node-1')])).toEqual({
      rule: 'node-down-hides-its-alerts',
      by: { source: 'alertmanager', fingerprint: 'nd-node-1', name: 'NodeDown' },
    });
  });

  it('does not inhibit when an equal label differs or is missing on either side', () => {
    expect(inhibitorFor(p, signal(), [nodeDown('node-2')])).toBeNull();
    expect(inhibitorFor(p, signal({ labels: {} }), [nodeDown('node-1')])).toBeNull();
    const noHost = firing('nd', { name: 'NodeDown', labels: {} });
    expect(inhibitorFor(p, signal({ labels: {} }), [noHost])).toBeNull();
  });

  it('does not inhibit a signal the target matchers do not select', () => {
    expect(inhibitorFor(p, signal({ severity: 'critical' }), [nodeDown('node-1')])).toBeNull();
  });

  it('needs a firing source; nothing firing inhibits nothing', () => {
    expect(inhibitorFor(p, signal(), [])).toBeNull();
    const other = firing('x', { name: 'DiskFull', labels: { host: 'node-1' } });
    expect(inhibitorFor(p, signal(), [other])).toBeNull();
  });

  it('with no equal keys, any firing source inhibits', () => {
    const q = policy({
      inhibit: [{ name: 'r', source: { alertname: 'NodeDown' }, target: { severity: '*' } }],
    });
    expect(inhibitorFor(q, signal(), [nodeDown('elsewhere')])?.rule).toBe('r');
  });

  it('never lets a signal inhibit itself', () => {
    const q = policy({
      inhibit: [
        {
          name: 'any-warning',
          source: { severity: 'warning' },
          target: { source: 'alertmanager' },
        },
      ],
    });
    const self = firing('fp-1');
    expect(inhibitorFor(q, self, [self])).toBeNull();
    // The same fingerprint from another source is another signal.
    expect(inhibitorFor(q, self, [{ ...self, source: 'grafana' }])?.rule).toBe('any-warning');
  });

  it('does not let two signals that match both sides silence each other', () => {
    const q = policy({
      inhibit: [{ name: 'both', source: { team: 'pay' }, target: { team: 'pay' } }],
    });
    const a = firing('a');
    const b = firing('b');
    expect(inhibitorFor(q, a, [a, b])).toBeNull();
    // A source that matches the source side only still inhibits.
    const q2 = policy({
      inhibit: [{ name: 'r', source: { team: 'pay' }, target: { severity: 'warning' } }],
    });
    const critical = firing('c', { severity: 'critical' });
    expect(inhibitorFor(q2, a, [a, critical])).toEqual({
      rule: 'r',
      by: { source: 'alertmanager', fingerprint: 'c', name: 'HighLatency' },
    });
  });

  it('answers with the first rule in list order', () => {
    const q = policy({
      inhibit: [
        { name: 'first', source: { alertname: 'NodeDown' }, target: { team: 'pay' } },
        { name: 'second', source: { alertname: 'NodeDown' }, target: { severity: 'warning' } },
      ],
    });
    expect(inhibitorFor(q, signal(), [nodeDown('node-1')])?.rule).toBe('first');
  });

  it('reads a one-shot iterable of firing signals once, across rules', () => {
    const q = policy({
      inhibit: [
        { name: 'no', source: { alertname: 'Nope' }, target: { severity: 'warning' } },
        { name: 'yes', source: { alertname: 'NodeDown' }, target: { severity: 'warning' } },
      ],
    });
    function* live() {
      yield nodeDown('node-1');
    }
    expect(inhibitorFor(q, signal(), live())?.rule).toBe('yes');
  });

  it('does not read the firing signals when no rule selects the target', () => {
    function* boom(): Generator<FiringSignal> {
      yield* [];
      throw new Error('read');
    }
    expect(inhibitorFor(p, signal({ severity: 'info' }), boom())).toBeNull();
  });
});

describe('groupKey', () => {
  it('groups by alertname by default', () => {
    expect(groupKey(DEFAULT_POLICY, signal())).toBe('[["alertname","HighLatency"]]');
    expect(groupKey(DEFAULT_POLICY, signal({ service: 'orders' }))).toBe(
      groupKey(DEFAULT_POLICY, signal()),
    );
  });

  it('is null when grouping is off', () => {
    expect(groupKey(policy({ grouping: { window_s: 300, by: [] } }), signal())).toBeNull();
  });

  it('lists every key in order, null for a missing value', () => {
    const p = policy({ grouping: { window_s: 60, by: ['alertname', 'region', 'team'] } });
    expect(groupKey(p, signal())).toBe(
      '[["alertname","HighLatency"],["region",null],["team","pay"]]',
    );
    expect(JSON.parse(groupKey(p, signal()) ?? '')).toEqual([
      ['alertname', 'HighLatency'],
      ['region', null],
      ['team', 'pay'],
    ]);
  });

  it('differs when a value differs, and cannot be confused by separators in values', () => {
    const p = policy({ grouping: { window_s: 60, by: ['a', 'b'] } });
    const one = groupKey(p, signal({ labels: { a: 'x","b', b: 'y' } }));
    const two = groupKey(p, signal({ labels: { a: 'x', b: 'b","y' } }));
    expect(one).not.toBe(two);
  });
});
