// Google Cloud Monitoring (Stackdriver) webhook, versions 1.1 and 1.2: one `incident` per
// body, state open / closed (compared case-insensitively), times in epoch seconds.
import { NotReadableError, Severity, type Normaliser } from '../signal.js';
import {
  COMMON_SEVERITY,
  first,
  hashOf,
  flatten,
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
          fingerprint: idOf(id),
          started_at: time(incident['started_at']) ?? ctx.receivedAt,
          ended_at: resolved ? (time(incident['ended_at']) ?? ctx.receivedAt) : null,
          summary: first(incident['summary'], obj(incident['documentation'])?.['subject']) ?? name,
          labels: labelsOf(b, incident),
          link: link(incident['url']),
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
  put(out, 'version', b['version']);
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
    put(out, key, incident[key]);
  }
  put(out, 'resource.type', obj(incident['resource'])?.['type']);
  put(out, 'metric.type', obj(incident['metric'])?.['type']);
  put(out, 'documentation', obj(incident['documentation'])?.['content']);
  Object.assign(
    out,
    safeFlatten(obj(incident['resource'])?.['labels'], 'resource'),
    safeFlatten(obj(incident['metric'])?.['labels'], 'metric'),
    safeFlatten(obj(incident['metadata'])?.['system_labels'], 'system'),
    safeFlatten(obj(incident['metadata'])?.['user_labels'], ''),
    safeFlatten(incident['policy_user_labels'], ''),
  );
  return out;
}

function put(out: Record<string, string>, key: string, v: unknown): void {
  const s = str(v);
  if (s !== undefined) out[key] = s.slice(0, 1000);
}

/** flatten() serialises arrays with JSON.stringify, which overflows on deeply nested ones. */
function safeFlatten(v: unknown, prefix: string): Record<string, string> {
  try {
    return flatten(v, prefix);
  } catch {
    return {};
  }
}

/** An absolute http(s) URL, else null. */
function link(v: unknown): string | null {
  const s = str(v);
  if (s === undefined) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? s : null;
  } catch {
    return null;
  }
}

/** The source's own id as a dedup key; hashed when too long to be one. */
function idOf(id: string): string {
  return id.length > 256 ? hashOf(SOURCE, 'id', id) : id;
}
