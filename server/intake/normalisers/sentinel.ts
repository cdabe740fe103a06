// Microsoft Sentinel incident, as the Logic App "Microsoft Sentinel incident" trigger hands it
// to an HTTP action (@{triggerBody()}): workspaceInfo, workspaceId, incidentUpdates and the
// incident ARM resource in `object`. NORMALISATION.md §2 (sentinel).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type SignalStatus,
} from '../signal.js';
import {
  arr,
  at,
  first,
  hashOf,
  isObject,
  type JsonObject,
  obj,
  severity,
  signal,
  str,
  time,
} from './read.js';

const SOURCE = 'sentinel';

const SEVERITY: Readonly<Record<string, Severity>> = {
  high: 'high',
  medium: 'warning',
  low: 'info',
  informational: 'info',
};

const STATUS: Readonly<Record<string, SignalStatus>> = {
  new: 'firing',
  active: 'firing',
  closed: 'resolved',
};

const INCIDENT_ID = /\/microsoft\.securityinsights\/incidents\//i;

function detect(body: unknown): boolean {
  if (!isObject(body)) return false;
  if (isObject(body['workspaceInfo'])) return true;
  const id = at(body, 'object.id');
  return typeof id === 'string' && INCIDENT_ID.test(id);
}

/** The incident: `object` of the trigger body, or the incident resource itself. */
function incidentOf(b: JsonObject): JsonObject | undefined {
  const o = obj(b['object']);
  if (o !== undefined) return o;
  const id = str(b['id']);
  return id !== undefined && INCIDENT_ID.test(id) && isObject(b['properties']) ? b : undefined;
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('a Sentinel incident body is a JSON object');
  const incident = incidentOf(b);
  if (incident === undefined) throw new NotReadableError('object (the incident) is not an object');
  const p = obj(incident['properties']);
  if (p === undefined) throw new NotReadableError('object.properties is not an object');
  const name = first(p['title']);
  const state = str(p['status'])?.toLowerCase();
  const id = first(incident['id'], incident['name']);
  if (name === undefined) throw new NotReadableError('object.properties.title is missing');
  if (state === undefined) throw new NotReadableError('object.properties.status is missing');
  if (id === undefined) throw new NotReadableError('object.id is missing');
  const status = Object.hasOwn(STATUS, state) ? STATUS[state] : undefined;
  if (status === undefined) {
    return {
      kind: 'control',
      reason: `sentinel incident status ${state.slice(0, 64)} is not a state change`,
    };
  }
  const updates = obj(b['incidentUpdates']);
  const labels: Record<string, string> = {};
  put(labels, 'incident_number', p['incidentNumber']);
  put(labels, 'incident_name', incident['name']);
  put(labels, 'status', p['status']);
  put(labels, 'severity', p['severity']);
  put(labels, 'classification', p['classification']);
  put(labels, 'classification_reason', p['classificationReason']);
  put(labels, 'classification_comment', p['classificationComment']);
  put(labels, 'provider', p['providerName']);
  put(
    labels,
    'owner',
    first(at(p, 'owner.assignedTo'), at(p, 'owner.email'), at(p, 'owner.userPrincipalName')),
  );
  put(labels, 'tactics', list(at(p, 'additionalData.tactics')));
  put(labels, 'techniques', list(at(p, 'additionalData.techniques')));
  put(labels, 'alert_products', list(at(p, 'additionalData.alertProductNames')));
  put(labels, 'alerts_count', at(p, 'additionalData.alertsCount'));
  put(
    labels,
    'labels',
    list((arr(p['labels']) ?? []).slice(0, 100).map((l) => at(l, 'labelName'))),
  );
  put(labels, 'workspace_id', b['workspaceId']);
  put(labels, 'subscription_id', at(b, 'workspaceInfo.SubscriptionId'));
  put(labels, 'resource_group', at(b, 'workspaceInfo.ResourceGroupName'));
  put(labels, 'updated_fields', list(updates?.['updatedFields']));
  put(labels, 'updated_by', at(updates, 'updatedBy.name'));
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status,
        severity: severity(p['severity'], SEVERITY),
        service: first(at(b, 'workspaceInfo.WorkspaceName')) ?? null,
        resource: first(at(p, 'Alerts.0.properties.compromisedEntity')) ?? null,
        fingerprint: key(id),
        started_at: time(p['firstActivityTimeUtc']) ?? time(p['createdTimeUtc']) ?? ctx.receivedAt,
        ended_at:
          status === 'resolved'
            ? (time(updates?.['updatedTime']) ??
              time(p['closedTimeUtc']) ??
              time(p['lastModifiedTimeUtc']) ??
              ctx.receivedAt)
            : null,
        summary: first(p['description'], name) ?? name,
        labels,
        link: url(p['incidentUrl']),
      }),
    ],
  };
}

function list(v: unknown): string | undefined {
  const parts = (arr(v) ?? [])
    .slice(0, 100)
    .map((x) => str(x))
    .filter((x) => x !== undefined);
  return parts.length === 0 ? undefined : parts.join(', ');
}

function url(v: unknown): string | null {
  const s = str(v);
  return s !== undefined && /^https?:\/\//i.test(s) ? s : null;
}

function put(out: Record<string, string>, key: string, v: unknown): void {
  const s = typeof v === 'boolean' ? String(v) : str(v);
  if (s !== undefined) out[key] = s.slice(0, 1000);
}

/** The intake takes fingerprints of at most 512 characters: a longer id is hashed. */
function key(id: string): string {
  return id.length <= 512 ? id : hashOf(SOURCE, id);
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['azure-sentinel'],
  detect,
  normalise,
};
