import { describe, expect, it } from 'vitest';
import { checkSignal } from '../signal-check.js';
import { NotReadableError, type NormaliseResult, type Signal } from '../signal.js';
import { normaliser } from './azure-monitor.js';
import { CONTEXT, hasShared, projectFixtures, sharedFixtures, type Fixture } from './testing.js';

const SOURCE = 'azure-monitor';
const RECEIVED = CONTEXT.receivedAt;

type Core = Pick<Signal, 'name' | 'status' | 'severity' | 'service' | 'resource' | 'fingerprint'>;
type Fields = Core & Pick<Signal, 'started_at' | 'ended_at' | 'link'>;
type Want<T> = readonly T[] | { readonly control: string };

const core = (s: Signal): Core => ({
  name: s.name,
  status: s.status,
  severity: s.severity,
  service: s.service,
  resource: s.resource,
  fingerprint: s.fingerprint,
});
const fields = (s: Signal): Fields => ({
  ...core(s),
  started_at: s.started_at,
  ended_at: s.ended_at,
  link: s.link,
});

const run = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);

/** The signals of a result, each passing the intake's shape check. */
function signalsOf(r: NormaliseResult): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  return r.signals;
}

function expectWanted<T>(r: NormaliseResult, want: Want<T> | undefined, pick: (s: Signal) => T) {
  if (want === undefined) throw new Error('no expectation for this fixture');
  if ('control' in want) expect(r).toEqual({ kind: 'control', reason: want.control });
  else expect(signalsOf(r).map(pick)).toEqual(want);
}

function bodyOf(fixtures: readonly Fixture[], file: string): unknown {
  const f = fixtures.find((x) => x.file === file);
  if (f === undefined) throw new Error(`no fixture ${file}`);
  return f.body;
}

/** Either a result whose signals pass the intake's shape check, or NotReadableError. */
function expectSafe(body: unknown): void {
  expect(typeof normaliser.detect(body, CONTEXT)).toBe('boolean');
  let r: NormaliseResult;
  try {
    r = run(body);
  } catch (err) {
    expect(err).toBeInstanceOf(NotReadableError);
    return;
  }
  if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, SOURCE));
  else expect(typeof r.reason).toBe('string');
}

function nested(levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

const HOSTILE: unknown[] = [
  null,
  42,
  'x',
  '',
  true,
  [],
  {},
  [{}],
  { alerts: 'no' },
  { alerts: [null, 1, 'x', []] },
  nested(100_000, 1),
  deepArray(100_000),
  'x'.repeat(5_000_000),
  { x: 'y'.repeat(5_000_000) },
];

/** Wrong types put at every path of a valid body. */
const WRONG: unknown[] = [
  null,
  42,
  -1,
  'x',
  '',
  true,
  [],
  {},
  [null],
  'x'.repeat(100_000),
  nested(20_000, 'x'),
  deepArray(20_000),
];

type Path = readonly (string | number)[];

/** Every path of a body to depth 6 (the first 3 elements of arrays). */
function pathsOf(v: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length >= 6 || typeof v !== 'object' || v === null) return out;
  const entries: [string | number, unknown][] = Array.isArray(v)
    ? v.slice(0, 3).map((x: unknown, i) => [i, x])
    : Object.entries(v);
  for (const [k, x] of entries) {
    const p = [...prefix, k];
    out.push(p);
    pathsOf(x, p, out);
  }
  return out;
}

/** A copy of body with the value at path replaced. */
function replaced(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body);
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path.at(-1);
  if (last !== undefined) cur[last] = value;
  return copy;
}

// Project fixtures -----------------------------------------------------------------------

const SUB = '/subscriptions/7c1f9e20-4b3a-4d8e-9a61-2f5b8c0d3e74';
const HTTP5XX = `${SUB}/providers/Microsoft.AlertsManagement/alerts/3e9b7a15-6c2d-4f80-b1a4-95d0e7c2f318`;
const NODES = `${SUB}/providers/Microsoft.AlertsManagement/alerts/a4c81f07-2e95-4b3d-8f16-0d7e9c2b5a43`;
const BLADE =
  'https://portal.azure.com/#blade/Microsoft_Azure_Monitoring/AlertDetailsTemplateBlade/alertId/';
const HTTP5XX_LINK = `${BLADE}%2Fsubscriptions%2F7c1f9e20-4b3a-4d8e-9a61-2f5b8c0d3e74%2Fproviders%2FMicrosoft.AlertsManagement%2Falerts%2F3e9b7a15-6c2d-4f80-b1a4-95d0e7c2f318`;

const PROJECT: Record<string, Want<Fields>> = {
  // Sev1 → high; customProperties.service names the service; configurationItems the host.
  'metric-http5xx-fired.json': [
    {
      name: 'checkout-appservice-http5xx',
      status: 'firing',
      severity: 'high',
      service: 'checkout',
      resource: 'checkout-web-prod',
      fingerprint: HTTP5XX,
      started_at: '2026-07-02T19:44:03.184Z',
      ended_at: null,
      link: HTTP5XX_LINK,
    },
  ],
  'metric-http5xx-resolved.json': [
    {
      name: 'checkout-appservice-http5xx',
      status: 'resolved',
      severity: 'high',
      service: 'checkout',
      resource: 'checkout-web-prod',
      fingerprint: HTTP5XX,
      started_at: '2026-07-02T19:44:03.184Z',
      ended_at: '2026-07-02T20:09:03.512Z',
      link: HTTP5XX_LINK,
    },
  ],
  // Sev0 → critical; no configurationItems: the last segment of the target id (trailing /).
  'log-alert-sev0-fired.json': [
    {
      name: 'aks-node-notready',
      status: 'firing',
      severity: 'critical',
      service: 'Log Alerts V2',
      resource: 'aks-prod-weu',
      fingerprint: NODES,
      started_at: '2026-07-03T01:05:12.004Z',
      ended_at: null,
      link: `${BLADE}${encodeURIComponent(NODES)}`,
    },
  ],
};

describe('azure-monitor: project fixtures', () => {
  const fixtures = projectFixtures(SOURCE);

  it('has an expectation for every fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(PROJECT).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), PROJECT[file], fields);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('gives Fired and Resolved of the same alert the same fingerprint', () => {
    const [firing] = signalsOf(run(bodyOf(fixtures, 'metric-http5xx-fired.json')));
    const [resolved] = signalsOf(run(bodyOf(fixtures, 'metric-http5xx-resolved.json')));
    expect(firing?.status).toBe('firing');
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });

  it('keeps custom properties, condition, dimensions and signal type as labels', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'metric-http5xx-fired.json')));
    expect(s?.labels).toEqual({
      service: 'checkout',
      owner: 'team-payments',
      severity: 'Sev1',
      signalType: 'Metric',
      monitoringService: 'Platform',
      monitorCondition: 'Fired',
      alertId: HTTP5XX,
      originAlertId:
        '7c1f9e20-4b3a-4d8e-9a61-2f5b8c0d3e74_rg-checkout-prod_microsoft.insights_metricAlerts_checkout-appservice-http5xx_1638420517',
      essentialsVersion: '1.0',
      alertTargetID: `${SUB}/resourcegroups/rg-checkout-prod/providers/microsoft.web/sites/checkout-web-prod`,
      conditionType: 'SingleResourceMultipleMetricCriteria',
      'condition.0.metricName': 'Http5xx',
      'condition.0.metricNamespace': 'Microsoft.Web/sites',
      'condition.0.operator': 'GreaterThan',
      'condition.0.threshold': '50',
      'dimension.Instance': 'pd0mdwk000YBQ',
    });
    expect(s?.summary).toBe('HTTP 5xx above 50 per 5 minutes on checkout-web-prod');
  });

  it('summarises by the rule name when the description is empty', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'log-alert-sev0-fired.json')));
    expect(s?.summary).toBe('aks-node-notready');
    expect(s?.labels['dimension.Computer']).toBe('aks-nodepool1-31415926-vmss000004');
  });
});

// Shared public fixtures (present in CI) -------------------------------------------------

const SHARED: Record<string, Want<Core>> = {
  'msdocs-common-schema-log-alerts-v2-fired.json': [
    {
      name: 'AcmeRule',
      status: 'firing',
      severity: 'info',
      service: 'Log Alerts V2',
      resource: 'testvm',
      fingerprint:
        '/subscriptions/12345a-1234b-123c-123d-12345678e/providers/Microsoft.AlertsManagement/alerts/12345a-1234b-123c-123d-12345678e',
    },
  ],
  'msdocs-common-schema-metric-resolved.json': [
    {
      name: 'WCUS-R2-Gen2',
      status: 'resolved',
      severity: 'info',
      service: 'Platform',
      resource: 'wcus-r2-gen2',
      fingerprint:
        '/subscriptions/<subscription ID>/providers/Microsoft.AlertsManagement/alerts/b9569717-bc32-442f-add5-83a997729330',
    },
  ],
};

describe.runIf(hasShared)('azure-monitor: shared fixtures', () => {
  const fixtures = sharedFixtures(SOURCE);

  it('has an expectation for every shared fixture file', () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(SHARED).sort());
  });

  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(run(body), SHARED[file], core);
      expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }

  it('reads the 7-digit fractions of fired and resolved times', () => {
    const [s] = signalsOf(run(bodyOf(fixtures, 'msdocs-common-schema-metric-resolved.json')));
    expect(s).toMatchObject({
      started_at: '2019-03-22T13:58:24.371Z',
      ended_at: '2019-03-22T14:03:16.224Z',
    });
  });
});

// Detection ------------------------------------------------------------------------------

describe('azure-monitor: detect', () => {
  it('is false for null, {}, [] and other sources', () => {
    for (const body of [
      null,
      {},
      [],
      { data: {} },
      { schemaId: 'Microsoft.Insights/activityLogs' },
    ]) {
      expect(normaliser.detect(body, CONTEXT)).toBe(false);
    }
  });

  it('is false for a Sentinel incident and a GCP incident', () => {
    const sentinel = {
      workspaceInfo: { WorkspaceName: 'w' },
      object: { id: '/subscriptions/s/providers/Microsoft.SecurityInsights/incidents/1' },
    };
    const gcp = {
      incident: { incident_id: '0.a', policy_name: 'p', state: 'open' },
      version: '1.2',
    };
    expect(normaliser.detect(sentinel, CONTEXT)).toBe(false);
    expect(normaliser.detect(gcp, CONTEXT)).toBe(false);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('azure-monitor: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of HOSTILE) expectSafe(body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    for (const { body } of [...projectFixtures(SOURCE), ...sharedFixtures(SOURCE)]) {
      for (const path of pathsOf(body)) for (const w of WRONG) expectSafe(replaced(body, path, w));
    }
  });

  it('refuses bodies without essentials, rule, condition or alert id', () => {
    const essentials = { alertRule: 'r', monitorCondition: 'Fired', alertId: 'a' };
    expect(() => run({ schemaId: 'azureMonitorCommonAlertSchema' })).toThrow(/essentials/);
    expect(() => run({ data: { essentials: { ...essentials, alertRule: 5 } } })).not.toThrow();
    expect(() => run({ data: { essentials: { ...essentials, alertRule: {} } } })).toThrow(
      /alertRule/,
    );
    expect(() => run({ data: { essentials: { ...essentials, monitorCondition: 'x' } } })).toThrow(
      /monitorCondition/,
    );
    expect(() => run({ data: { essentials: { ...essentials, alertId: null } } })).toThrow(
      /alertId/,
    );
  });

  it('links only alert ids that are ARM ids', () => {
    const essentials = { alertRule: 'r', monitorCondition: 'Fired', alertId: 'javascript:x' };
    const [s] = signalsOf(run({ data: { essentials } }));
    expect(s).toMatchObject({ link: null, fingerprint: 'javascript:x', started_at: RECEIVED });
  });
});
