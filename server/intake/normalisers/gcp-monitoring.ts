// Google Cloud Monitoring (Stackdriver) webhook, versions 1.1 and 1.2: one `incident` per
// body, state open / closed (compared case-insensitively), times in epoch seconds.
import { NotReadableError, Severity, type Normaliser } from '../signal.js';
import { absoluteLink, flatten, putString } from './labels.js';
import {
  COMMON_SEVERITY,
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

const SOURCE = 'gcp-monitoring';

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['gcp', 'stackdriver'],
  detect(body) {
    const b = obj(body);
    const incident = obj(b?.['incident']);
    if (b === undefined || incident === undefined) return false;
    const version = b['version'];
    return (
      str(incident['incident_id']) !== undefined &&
      typeof incident['policy_name'] === 'string' &&
      (version === undefined || (typeof version === 'string' && version.startsWith('1.')))
    );
  },
  normalise(body, ctx) {
    const b = obj(body);
    if (b === undefined) throw new NotReadableError('body is not an object');
    const incident = obj(b['incident']);
    if (incident === undefined) throw new NotReadableError('incident is not an object');
    const id = required(str(incident['incident_id']), 'incident.incident_id');
    const policy = required(str(incident['policy_name']), 'incident.policy_name');
    const condition = str(incident['condition_name']);
    const state = str(incident['state'])?.toLowerCase();
    if (state !== 'open' && state !== 'closed') {
      throw new NotReadableError('incident.state is not open or closed');
    }
    const resolved = state === 'closed';
    const name =
      condition !== undefined && condition !== policy ? `${policy}: ${condition}` : policy;
    const policyLabels = obj(incident['policy_user_labels']);
    const userLabels = obj(obj(incident['metadata'])?.['user_labels']);
    const resourceLabels = obj(obj(incident['resource'])?.['labels']);
    return {
      kind: 'signals',
      signals: [
        signal({
          source: SOURCE,
          name,
          status: resolved ? 'resolved' : 'firing',
          severity: severityOf(incident, policyLabels, userLabels),
          service: first(policyLabels?.['service'], incident['scoping_project_id']) ?? null,
          resource:
            first(
              resourceLabels?.['instance_id'],
              incident['resource_name'],
              incident['resource_display_name'],
            ) ?? null,
          fingerprint: dedupKey(SOURCE, id),
          started_at: time(incident['started_at']) ?? ctx.receivedAt,
          ended_at: resolved ? (time(incident['ended_at']) ?? ctx.receivedAt) : null,
          summary: first(incident['summary'], obj(incident['documentation'])?.['subject']) ?? name,
          labels: labelsOf(b, incident),
          link: absoluteLink(incident['url']),
        }),
      ],
    };
  },
};

/** `incident.severity` (newer bodies), else a `severity` user label on the policy. */
function severityOf(
  incident: JsonObject,
  policyLabels: JsonObject | undefined,
  userLabels: JsonObject | undefined,
): Severity {
  for (const v of [incident['severity'], policyLabels?.['severity'], userLabels?.['severity']]) {
    const s = severity(v, COMMON_SEVERITY);
    if (s !== Severity.Unknown) return s;
  }
  return Severity.Unknown;
}

function labelsOf(b: JsonObject, incident: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  putString(out, 'version', b['version']);
  for (const key of [
    'policy_name',
    'condition_name',
    'resource_id',
    'resource_name',
    'resource_display_name',
    'resource_type_display_name',
    'scoping_project_id',
    'scoping_project_number',
    'observed_value',
    'threshold_value',
    'severity',
  ]) {
    putString(out, key, incident[key]);
  }
  putString(out, 'resource.type', obj(incident['resource'])?.['type']);
  putString(out, 'metric.type', obj(incident['metric'])?.['type']);
  putString(out, 'documentation', obj(incident['documentation'])?.['content']);
  Object.assign(
    out,
    flatten(obj(incident['resource'])?.['labels'], 'resource'),
    flatten(obj(incident['metric'])?.['labels'], 'metric'),
    flatten(obj(incident['metadata'])?.['system_labels'], 'system'),
    flatten(obj(incident['metadata'])?.['user_labels']),
    flatten(incident['policy_user_labels']),
  );
  return out;
}
