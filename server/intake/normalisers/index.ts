// Every normaliser, in the order `auto` tries them: specific formats before looser ones
// (NORMALISATION.md §4b). Adding a source is one import and one line here.
import type { Normaliser } from '../signal.js';
import { normaliser as alertmanager } from './alertmanager.js';
import { normaliser as azureMonitor } from './azure-monitor.js';
import { normaliser as checkmk } from './checkmk.js';
import { normaliser as cloudwatchSns } from './cloudwatch-sns.js';
import { normaliser as crowdstrike } from './crowdstrike.js';
import { normaliser as datadog } from './datadog.js';
import { normaliser as dynatrace } from './dynatrace.js';
import { normaliser as falco } from './falco.js';
import { normaliser as gcpMonitoring } from './gcp-monitoring.js';
import { normaliser as grafana } from './grafana.js';
import { normaliser as grafanaLegacy } from './grafana-legacy.js';
import { normaliser as graylog } from './graylog.js';
import { normaliser as netdata } from './netdata.js';
import { normaliser as newrelic } from './newrelic.js';
import { normaliser as opsgenie } from './opsgenie.js';
import { normaliser as pagerduty } from './pagerduty.js';
import { normaliser as panther } from './panther.js';
import { normaliser as pingdom } from './pingdom.js';
import { normaliser as riemann } from './riemann.js';
import { normaliser as sentinel } from './sentinel.js';
import { normaliser as sentry } from './sentry.js';
import { normaliser as splunk } from './splunk.js';
import { normaliser as suricata } from './suricata.js';
import { normaliser as updown } from './updown.js';
import { normaliser as uptimeKuma } from './uptime-kuma.js';
import { normaliser as vmwareVrealize } from './vmware-vrealize.js';
import { normaliser as wazuh } from './wazuh.js';
import { normaliser as zabbix } from './zabbix.js';

export const NORMALISERS: readonly Normaliser[] = [
  cloudwatchSns,
  azureMonitor,
  sentinel,
  pagerduty,
  opsgenie,
  sentry,
  grafana,
  alertmanager,
  grafanaLegacy,
  gcpMonitoring,
  crowdstrike,
  suricata,
  datadog,
  newrelic,
  dynatrace,
  splunk,
  graylog,
  wazuh,
  falco,
  pingdom,
  uptimeKuma,
  updown,
  netdata,
  checkmk,
  panther,
  vmwareVrealize,
  riemann,
  zabbix,
];

/** The normaliser for a `<source>` path segment or one of its aliases. */
export function normaliserFor(name: string): Normaliser | undefined {
  const n = name.toLowerCase();
  return NORMALISERS.find((x) => x.source === n || (x.aliases ?? []).includes(n));
}

/** The first normaliser whose detector recognises the body (`<source>` = auto). */
export function detect(
  body: unknown,
  ctx: Parameters<Normaliser['detect']>[1],
): Normaliser | undefined {
  return NORMALISERS.find((x) => {
    try {
      return x.detect(body, ctx);
    } catch {
      return false;
    }
  });
}
