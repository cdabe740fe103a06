import { describe, expect, it } from 'vitest';
import { normaliser } from './azure-monitor.js';
import {
  allFixtures,
  bodyOf,
  core,
  DEEP_SWEEP,
  expectNotDetected,
  expectPaired,
  expectSafe,
  fields,
  fixtureTests,
  hostileBodies,
  hostileSweep,
  readerFor,
  type Core,
  type Fields,
  type Want,
} from '../../testing/intake/normaliser-harness.js';
import {
  CONTEXT,
  hasShared,
  projectFixtures,
  sharedFixtures,
} from '../../testing/intake/normaliser-fixtures.js';

const SOURCE = 'azure-monitor';
const RECEIVED = CONTEXT.receivedAt;
const { run, signalsOf, first } = readerFor(normaliser);

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

  fixtureTests(normaliser, fixtures, PROJECT, fields, { detect: true });

  it('gives Fired and Resolved of the same alert the same fingerprint', () => {
    expectPaired(
      first(bodyOf(fixtures, 'metric-http5xx-fired.json')),
      first(bodyOf(fixtures, 'metric-http5xx-resolved.json')),
    );
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

  fixtureTests(normaliser, fixtures, SHARED, core, { shared: true, detect: true });

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
    expectNotDetected(normaliser, [
      null,
      {},
      [],
      { data: {} },
      { schemaId: 'Microsoft.Insights/activityLogs' },
    ]);
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
    expectNotDetected(normaliser, [sentinel, gcp]);
  });
});

// Hostile input --------------------------------------------------------------------------

describe('azure-monitor: hostile input', () => {
  it('throws NotReadableError or returns a result, never another exception', () => {
    for (const body of hostileBodies()) expectSafe(normaliser, body);
  });

  it('survives a wrong type at every path of every fixture', () => {
    hostileSweep(normaliser, allFixtures(SOURCE), DEEP_SWEEP);
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
