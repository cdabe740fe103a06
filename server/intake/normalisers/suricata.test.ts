import { describe, expect, it } from 'vitest';
import { normaliser } from './suricata.js';
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
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'suricata';
const { run, only, project } = readerFor(normaliser);

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, Want<Fields>> = {
  'eve-alert-http-exploit-blocked.json': [
    {
      name: 'ET EXPLOIT Apache log4j RCE Attempt (http ldap) (CVE-2021-44228)',
      status: 'firing',
      severity: 'high',
      // app_proto "http" is a protocol, not a service: kept as a label.
      service: null,
      // alert.target.ip
      resource: '10.20.4.31',
      // hashOf('suricata', '1:2034647:4', '192.0.2.77', '10.20.4.31')
      fingerprint: 'cca2b2ae9a53b6c4315aea1f261cc273',
      started_at: '2026-07-02T14:40:09.004Z',
      ended_at: null,
      link: null,
    },
  ],
  'eve-alert-ssh-scan.json': [
    {
      name: 'ET SCAN Potential SSH Scan',
      status: 'firing',
      severity: 'warning',
      service: null,
      resource: '10.20.0.15',
      // hashOf('suricata', '1:2001219:20', '198.51.100.23', '10.20.0.15')
      fingerprint: '2190cd4cb98904c990391eafe226277b',
      started_at: '2026-07-02T14:03:51.772Z',
      ended_at: null,
      link: null,
    },
  ],
  'eve-flow-non-alert.json': { control: 'suricata flow event is not an alert' },
};

describe('suricata: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, PROJECT, fields);

  it('keeps rule ids, category, action, addresses and the sensor as labels', () => {
    const s = only(project('eve-alert-http-exploit-blocked.json'));
    expect(s.labels).toMatchObject({
      'alert.action': 'blocked',
      'alert.category': 'Attempted Administrator Privilege Gain',
      'alert.signature_id': '2034647',
      'alert.rev': '4',
      'alert.metadata.cve': 'CVE_2021_44228',
      src_ip: '192.0.2.77',
      dest_port: '8080',
      app_proto: 'http',
      proto: 'TCP',
      sensor: 'ips-core-02',
      'http.hostname': 'inventory.internal.example',
    });
    // EVE's `host` (the sensor) must not become the service the intake derives from labels.
    expect(s.labels['host']).toBeUndefined();
    expect(s.summary).toBe(
      'ET EXPLOIT Apache log4j RCE Attempt (http ldap) (CVE-2021-44228) (Attempted Administrator Privilege Gain)',
    );
  });
});

// Same instance ---------------------------------------------------------------------------

describe('suricata: fingerprints and severity', () => {
  it('gives the same rule between the same addresses one fingerprint across flows', () => {
    const first = project('eve-alert-ssh-scan.json');
    const again = {
      ...first,
      flow_id: 1870234455200001,
      src_port: 51990,
      timestamp: '2026-07-02T14:09:02.100000+0000',
    };
    expect(only(again).fingerprint).toBe(only(first).fingerprint);
    expect(only({ ...first, src_ip: '198.51.100.24' }).fingerprint).not.toBe(
      only(first).fingerprint,
    );
  });

  it('maps alert.severity 1..4, and falls back to the destination without alert.target', () => {
    const body = project('eve-alert-ssh-scan.json');
    const alert = body['alert'] as Record<string, unknown>;
    const of = (severity: unknown) => only({ ...body, alert: { ...alert, severity } }).severity;
    expect([1, 2, 3, 4, '1', 9, null].map(of)).toEqual([
      'high',
      'warning',
      'info',
      'info',
      'high',
      'unknown',
      'unknown',
    ]);
    expect(only(body).resource).toBe('10.20.0.15');
  });

  it('acknowledges every event type but alert', () => {
    const body = project('eve-flow-non-alert.json');
    for (const type of ['dns', 'http', 'tls', 'stats', 'fileinfo']) {
      expect(run({ ...body, event_type: type })).toEqual({
        kind: 'control',
        reason: `suricata ${type} event is not an alert`,
      });
    }
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, CountedWant<Core>> = {
  'oisf-docs-eve-alert.json': {
    count: 1,
    signals: [
      {
        name: 'ET MALWARE BTGrab.com Spyware Downloading Ads',
        status: 'firing',
        severity: 'high',
        service: null,
        resource: 'x.x.250.50',
        // hashOf('suricata', '1:2001999:9', '192.168.2.7', 'x.x.250.50')
        fingerprint: '4a5a59491391c7a07c0f3ce9412439e5',
      },
    ],
  },
  'oisf-docs-eve-anomaly-applayer-non-alert.json': {
    control: 'suricata anomaly event is not an alert',
  },
};

describe.runIf(hasShared)('suricata: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true });

  it('reads a timestamp without a zone as UTC', () => {
    const s = only(fixtures.find((f) => f.file === 'oisf-docs-eve-alert.json')?.body);
    expect(s.started_at).toBe('2009-11-24T21:27:09.534Z');
  });

  it('does not detect the shared fixtures of other sources', () => {
    expectOtherSourcesNotDetected(normaliser);
  });
});

// Detection -------------------------------------------------------------------------------

describe('suricata: detect', () => {
  it('recognises every fixture of this source (alerts and other EVE events)', () => {
    expectDetected(normaliser, allFixtures(SOURCE));
  });

  it('rejects empty and foreign bodies', () => {
    expectNotDetected(normaliser, [null, {}, [], 'x', 42]);
    const datadog = {
      id: '7302015532081219583',
      event_type: 'query_alert_monitor',
      title: '[Triggered] CPU high',
      date: '1712000000000',
      org: { id: '123', name: 'acme' },
    };
    expectNotDetected(normaliser, [datadog]);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('suricata: hostile input', () => {
  it('throws NotReadableError for bodies that are not EVE events', () => {
    expectNotReadable(normaliser, [
      ...UNREADABLE_BODIES,
      { event_type: 42, src_ip: 'a', dest_ip: 'b' },
      { event_type: 'alert', src_ip: 'a', dest_ip: 'b' },
      { event_type: 'alert', alert: { category: 'c' } },
    ]);
  });

  it('never throws anything but NotReadableError', () => {
    const bodies: unknown[] = [
      { event_type: 'alert', alert: nested('alert', 10_000, {}), src_ip: 'a', dest_ip: 'b' },
      { event_type: 'alert', alert: { signature: 's', metadata: nested('m', 10_000, 1) } },
      { event_type: 'alert', alert: { signature: 's', metadata: { cve: deepArray(100_000) } } },
      {
        event_type: 'alert',
        alert: { signature: 'x'.repeat(5_000_000), category: 'y'.repeat(5_000_000) },
      },
      { event_type: 'x'.repeat(1_000_000), src_ip: 'a', dest_ip: 'b' },
      {
        event_type: 'alert',
        alert: { signature_id: 1, target: [] },
        timestamp: {},
        flow_id: 2 ** 60,
      },
    ];
    for (const body of bodies) expectSafe(normaliser, body);
  });

  it('survives wrong types at every field of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), SHALLOW_SWEEP_WITHOUT_EDGES);
  });
});
