// Azure Monitor common alert schema (schemaId azureMonitorCommonAlertSchema): one alert per
// body, `data.essentials` for the fields every signal type shares, `alertContext` per type.
// The alert id is the same for Fired and Resolved, so it is the fingerprint.
import { NotReadableError, type Normaliser, type Severity } from '../signal.js';
import { flatten, putString } from './labels.js';
import {
  arr,
  dedupKey,
  first,
  obj,
  required,
  severity,
  signal,
  str,
  time,
  type JsonObject,
} from './read.js';

const SOURCE = 'azure-monitor';
const SCHEMA = 'azureMonitorCommonAlertSchema';

const SEVERITY: Readonly<Record<string, Severity>> = {
  sev0: 'critical',
  sev1: 'high',
  sev2: 'warning',
  sev3: 'info',
  sev4: 'info',
};

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['azure'],
  detect(body) {
    const b = obj(body);
    return (
      b !== undefined &&
      (b['schemaId'] === SCHEMA || obj(obj(b['data'])?.['essentials']) !== undefined)
    );
  },
  normalise(body, ctx) {
    const b = obj(body);
    if (b === undefined) throw new NotReadableError('body is not an object');
    const data = obj(b['data']);
    const essentials = obj(data?.['essentials']);
    if (data === undefined || essentials === undefined) {
      throw new NotReadableError('data.essentials is not an object (not the common alert schema)');
    }
    const name = required(str(essentials['alertRule']), 'data.essentials.alertRule');
    const condition = str(essentials['monitorCondition'])?.toLowerCase();
    if (condition !== 'fired' && condition !== 'resolved') {
      throw new NotReadableError('data.essentials.monitorCondition is not Fired or Resolved');
    }
    const resolved = condition === 'resolved';
    const alertId = first(essentials['alertId'], essentials['originAlertId']);
    const custom = obj(data['customProperties']);
    return {
      kind: 'signals',
      signals: [
        signal({
          source: SOURCE,
          name,
          status: resolved ? 'resolved' : 'firing',
          severity: severity(essentials['severity'], SEVERITY),
          service: first(custom?.['service'], essentials['monitoringService']) ?? null,
          resource: resourceOf(essentials),
          fingerprint: dedupKey(SOURCE, required(alertId, 'data.essentials.alertId')),
          started_at: time(essentials['firedDateTime']) ?? ctx.receivedAt,
          ended_at: resolved ? (time(essentials['resolvedDateTime']) ?? ctx.receivedAt) : null,
          summary: str(essentials['description']) ?? name,
          labels: labelsOf(essentials, data),
          link: portalLink(essentials['alertId']),
        }),
      ],
    };
  },
};

/** configurationItems[0], else the last segment of the first target resource id. */
function resourceOf(essentials: JsonObject): string | null {
  const item = str(arr(essentials['configurationItems'])?.[0]);
  if (item !== undefined) return item;
  const target = str(arr(essentials['alertTargetIDs'])?.[0]);
  return (
    target
      ?.split('/')
      .filter((s) => s !== '')
      .pop() ?? null
  );
}

function labelsOf(essentials: JsonObject, data: JsonObject): Record<string, string> {
  // The operator's custom properties first: the alert's own fields win a clash.
  const out: Record<string, string> = flatten(data['customProperties']);
  for (const key of [
    'severity',
    'signalType',
    'monitoringService',
    'monitorCondition',
    'alertId',
    'originAlertId',
    'essentialsVersion',
  ]) {
    putString(out, key, essentials[key]);
  }
  putString(out, 'alertTargetID', arr(essentials['alertTargetIDs'])?.[0]);
  const context = obj(data['alertContext']);
  putString(out, 'conditionType', context?.['conditionType']);
  const allOf = (arr(obj(context?.['condition'])?.['allOf']) ?? []).slice(0, 20);
  allOf.forEach((c, i) => {
    const criterion = obj(c);
    for (const key of ['metricName', 'metricNamespace', 'searchQuery', 'operator', 'threshold']) {
      putString(out, `condition.${String(i)}.${key}`, criterion?.[key]);
    }
    for (const d of (arr(criterion?.['dimensions']) ?? []).slice(0, 50)) {
      const dimension = str(obj(d)?.['name']);
      if (dimension !== undefined) putString(out, `dimension.${dimension}`, obj(d)?.['value']);
    }
  });
  return out;
}

/** The alert in the Azure portal, by its alert id. */
function portalLink(alertId: unknown): string | null {
  const id = str(alertId);
  if (id === undefined || !id.startsWith('/subscriptions/')) return null;
  return `https://portal.azure.com/#blade/Microsoft_Azure_Monitoring/AlertDetailsTemplateBlade/alertId/${encodeURIComponent(id)}`;
}
