import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './suricata.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, sharedSources } from './testing.js';

const SOURCE = 'suricata';

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

const read = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);

function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

function only(body: unknown): Signal {
  const [s, ...rest] = signalsOf(read(body));
  expect(rest).toHaveLength(0);
  if (s === undefined) throw new Error('no signal');
  return s;
}

/** Either a result or NotReadableError; never another exception. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  try {
    const r = read(body);
    if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
    else expect(typeof r.reason).toBe('string');
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
  }
}

/** Copies of body with the value at each path (to depth 3) replaced by a wrong type. */
function* mutations(body: unknown, depth = 3): Generator<unknown> {
  const WRONG: unknown[] = [null, 42, 'x', [], {}, true, 'x'.repeat(100_000)];
  if (depth === 0 || typeof body !== 'object' || body === null) return;
  const entries = Array.isArray(body)
    ? body.map((v: unknown, i) => [String(i), v] as const)
    : Object.entries(body);
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

const project = (file: string): Record<string, unknown> => {
  const body = projectFixtures(SOURCE).find((f) => f.file === file)?.body;
  if (typeof body !== 'object' || body === null) throw new Error(`no fixture ${file}`);
  return body as Record<string, unknown>;
};

// Project fixtures ------------------------------------------------------------------------

const PROJECT: Record<string, readonly Fields[] | Control> = {
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

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = PROJECT[file];
      const got = read(body);
      if (want !== undefined && 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want.control });
      } else expect(signalsOf(got).map(fields)).toEqual(want);
    });
  }

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
      expect(read({ ...body, event_type: type })).toEqual({
        kind: 'control',
        reason: `suricata ${type} event is not an alert`,
      });
    }
  });
});

// Shared fixtures -------------------------------------------------------------------------

const SHARED: Record<string, { count: number; signals: readonly Core[] } | Control> = {
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

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      const want = SHARED[file];
      const got = read(body);
      if (want === undefined || 'control' in want) {
        expect(got).toEqual({ kind: 'control', reason: want?.control });
        return;
      }
      const signals = signalsOf(got);
      expect(signals).toHaveLength(want.count);
      expect(signals.map(core)).toEqual(want.signals);
    });
  }

  it('reads a timestamp without a zone as UTC', () => {
    const s = only(fixtures.find((f) => f.file === 'oisf-docs-eve-alert.json')?.body);
    expect(s.started_at).toBe('2009-11-24T21:27:09.534Z');
  });

  it('does not detect the shared fixtures of other sources', () => {
    for (const other of sharedSources().filter((s) => s !== SOURCE)) {
      for (const { file, body } of sharedFixtures(other)) {
        expect(normaliser.detect(body, CONTEXT), `${other}/${file}`).toBe(false);
      }
    }
  });
});

// Detection -------------------------------------------------------------------------------

describe('suricata: detect', () => {
  it('recognises every fixture of this source (alerts and other EVE events)', () => {
    for (const { file, body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      expect(normaliser.detect(body, CONTEXT), file).toBe(true);
    }
  });

  it('rejects empty and foreign bodies', () => {
    for (const body of [null, {}, [], 'x', 42])
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    const datadog = {
      id: '7302015532081219583',
      event_type: 'query_alert_monitor',
      title: '[Triggered] CPU high',
      date: '1712000000000',
      org: { id: '123', name: 'acme' },
    };
    expect(normaliser.detect(datadog, CONTEXT)).toBe(false);
  });
});

// Hostile input ---------------------------------------------------------------------------

describe('suricata: hostile input', () => {
  it('throws NotReadableError for bodies that are not EVE events', () => {
    for (const body of [
      null,
      42,
      'x',
      [],
      {},
      { alerts: 'no' },
      { event_type: 42, src_ip: 'a', dest_ip: 'b' },
      { event_type: 'alert', src_ip: 'a', dest_ip: 'b' },
      { event_type: 'alert', alert: { category: 'c' } },
    ]) {
      expect(() => read(body), JSON.stringify(body)).toThrow(NotReadableError);
    }
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
    for (const body of bodies) expectSafe(body);
  });

  it('survives wrong types at every field of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const m of mutations(body)) expectSafe(m);
    }
  });
});
