import { describe, expect, it } from 'vitest';
import { normaliser } from './wazuh.js';
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

const SOURCE = 'wazuh';
const { run, signalsOf, only, project } = readerFor(normaliser);

/** Keep-derived messages are read on the explicit /v1/alerts/wazuh route only (§4). */
const EXPLICIT_ONLY = new Set([
  'keep-custom-integration-output.json',
  'keep-derived-rootcheck.json',
]);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'keep-derived-rootcheck.json': [
    {
      name: 'Host-based anomaly detection event (rootcheck).',
      status: 'firing',
      // "Level 7" in the description, in the bands of native alerts (Keep's own word is info).
      severity: 'warning',
      service: null,
      resource: 'db-primary-02',
      // hashOf('wazuh', '510', '007'): rule id + agent id, as for a native alert.
      fingerprint: 'b6a73c0505306897615e949ce5d1347f',
      // "+01.00" read as +01:00.
      started_at: '2026-03-09T14:20:44.106Z',
      ended_at: null,
      link: null,
    },
  ],
  'native-sshd-bruteforce-5712.json': [
    {
      name: 'sshd: brute force trying to get access to the system. Non existent user.',
      status: 'firing',
      severity: 'high',
      service: null,
      resource: 'bastion-eu-1',
      // hashOf('wazuh', '5712', '014', '203.0.113.45'): an authentication rule adds data.srcip.
      fingerprint: '56efcb0dd6b609de08f75347e6daf35e',
      started_at: '2026-03-09T06:41:17.223Z',
      ended_at: null,
      link: null,
    },
  ],
  'native-syscheck-passwd-550.json': [
    {
      name: 'Integrity checksum changed.',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: 'db-primary-02',
      // hashOf('wazuh', '550', '007')
      fingerprint: 'f91d8b3de16c3834c09999b077e33b54',
      // "-0500" offset without a colon.
      started_at: '2026-03-09T13:02:55.911Z',
      ended_at: null,
      link: null,
    },
  ],
};

describe('wazuh: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('keeps rule, agent, compliance and data fields as labels; the summary is the log line', () => {
    const s = only(project('native-sshd-bruteforce-5712.json'));
    expect(s.labels).toMatchObject({
      'rule.id': '5712',
      'rule.level': '10',
      'rule.groups': 'syslog,sshd,authentication_failures',
      'rule.mitre.technique': 'Brute Force',
      'rule.pci_dss': '11.4,10.2.4,10.2.5',
      'agent.id': '014',
      'agent.ip': '172.20.4.11',
      'data.srcip': '203.0.113.45',
      'data.srcuser': 'deploy',
      location: 'journald',
      id: '1773038477.2291844',
    });
    expect(s.summary).toBe(
      'Mar  9 06:41:17 bastion-eu-1 sshd[44131]: Invalid user deploy from 203.0.113.45 port 51190',
    );
    // A multi-line full_log gives its first line.
    expect(only(project('native-syscheck-passwd-550.json')).summary).toBe(
      "File '/etc/passwd' modified",
    );
  });

  it('reads the Keep-derived message: rule and agent from its description lines', () => {
    const s = only(project('keep-derived-rootcheck.json'));
    expect(s.labels).toEqual({
      format: 'keep',
      'rule.id': '510',
      'rule.level': '7',
      'agent.id': '007',
      'agent.name': 'db-primary-02',
      'keep.severity': 'info',
    });
    expect(s.summary).toBe(
      "File '/usr/local/bin/backup.sh' is owned by root and has written permissions to anyone.",
    );
  });
});

// Same instance ---------------------------------------------------------------------------

describe('wazuh: fingerprints', () => {
  it('gives repeated alerts of one rule on one agent the same fingerprint (id and time differ)', () => {
    const first = project('native-syscheck-passwd-550.json');
    const again = {
      ...first,
      id: '1773065002.5611207',
      timestamp: '2026-03-09T09:03:22.004-0500',
      full_log: "File '/etc/passwd' modified\nMode: realtime\n",
      rule: { ...(first['rule'] as object), firedtimes: 2 },
    };
    expect(only(again).fingerprint).toBe(only(first).fingerprint);
    expect(only(again).started_at).toBe('2026-03-09T14:03:22.004Z');
  });

  it('tells authentication alerts apart by source address, other rules not', () => {
    const auth = project('native-sshd-bruteforce-5712.json');
    const otherSource = { ...auth, data: { srcip: '198.51.100.9', srcuser: 'deploy' } };
    expect(only(otherSource).fingerprint).not.toBe(only(auth).fingerprint);

    const fim = project('native-syscheck-passwd-550.json');
    expect(only({ ...fim, data: { srcip: '198.51.100.9' } }).fingerprint).toBe(
      only(fim).fingerprint,
    );
  });

  it('gives the Keep-derived message and the native alert of one rule and agent one fingerprint', () => {
    const fim = project('native-syscheck-passwd-550.json');
    const native = {
      ...fim,
      rule: {
        ...(fim['rule'] as object),
        id: '510',
        description: 'Host-based anomaly detection event (rootcheck).',
      },
    };
    expect(only(project('keep-derived-rootcheck.json')).fingerprint).toBe(only(native).fingerprint);
  });

  it('maps rule levels to the suggested bands', () => {
    const fim = project('native-syscheck-passwd-550.json');
    const at = (level: unknown) =>
      only({ ...fim, rule: { ...(fim['rule'] as object), level } }).severity;
    expect([0, 3, 4, 7, 8, 11, 12, 15, '13'].map(at)).toEqual([
      'info',
      'info',
      'warning',
      'warning',
      'high',
      'high',
      'critical',
      'critical',
      'critical',
    ]);
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'keep-custom-integration-output.json': {
    count: 1,
    signals: [
      {
        name: 'New dpkg (Debian Package) installed.',
        status: 'firing',
        severity: 'warning',
        service: null,
        resource: 'test',
        // hashOf('wazuh', '2902', '001')
        fingerprint: 'ff5235651398212d5fa4c0ae177c6fcc',
      },
    ],
  },
  'native-alerts-json-sshd-5710.json': {
    count: 1,
    signals: [
      {
        name: 'sshd: Attempt to login using a non-existent user',
        status: 'firing',
        severity: 'warning',
        service: null,
        resource: 'Ubuntu',
        // hashOf('wazuh', '5710', '002', '123.20.109.89'): groups invalid_login, authentication_failed.
        fingerprint: 'bff8ba1dfee6cd37e85de02b899c1ec3',
      },
    ],
  },
};

describe.runIf(hasShared)('wazuh: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('reads the times: "+0000" without colon, and Keep\'s "+01.00"', () => {
    const time = (file: string) => only(fixtures.find((f) => f.file === file)?.body).started_at;
    expect(time('native-alerts-json-sshd-5710.json')).toBe('2020-04-17T00:18:20.659Z');
    expect(time('keep-custom-integration-output.json')).toBe('2025-02-03T20:41:42.853Z');
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('wazuh: detect', () => {
  const all = allFixtures(SOURCE);

  it('recognises every native alert fixture', () => {
    const native = all.filter((f) => !EXPLICIT_ONLY.has(f.file));
    expect(native.length).toBeGreaterThan(0);
    expectDetected(normaliser, native);
  });

  it('leaves Keep-derived messages to the explicit route: not detected, but read', () => {
    const keep = all.filter((f) => EXPLICIT_ONLY.has(f.file));
    expect(keep.length).toBeGreaterThan(0);
    for (const { file, body } of keep) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(false);
      expect(signalsOf(run(body)), file).toHaveLength(1);
    }
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const falco = {
      rule: 'Terminal shell in container',
      priority: 'Notice',
      output: 'A shell was spawned',
      hostname: 'node-1',
      time: '2026-01-01T00:00:00Z',
    };
    const noAgent = { rule: { level: 5, id: '5710', description: 'x' } };
    expectNotDetected(normaliser, [falco, noAgent]);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('wazuh: hostile input', () => {
  it('throws NotReadableError for bodies that are not Wazuh alerts', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { rule: 'Terminal shell in container', priority: 'Notice', output: 'x' },
      { rule: {}, agent: {} },
      { message: 'm', description: 'no rule lines here' },
      { message: 'm', description: 42 },
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      { rule: nested('rule', 10_000, {}), agent: nested('agent', 10_000, {}) },
      {
        rule: { level: 5, id: '1', groups: deepArray(100_000), mitre: nested('id', 10_000, []) },
        agent: {},
      },
      {
        rule: { level: 5, id: '1', pci_dss: deepArray(100_000) },
        agent: {},
        data: nested('d', 10_000, 1),
      },
      {
        rule: { level: 5, description: 'x'.repeat(5_000_000) },
        agent: { name: 'y'.repeat(1_000_000) },
      },
      { rule: { id: '1', level: -3 }, agent: [], timestamp: 'not a time', full_log: 42 },
      { message: 'm', description: `Rule ID ${'x'.repeat(5_000_000)}` },
      { message: 'm', description: 'Rule ID 1\n'.repeat(100_000), created_at: {} },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
