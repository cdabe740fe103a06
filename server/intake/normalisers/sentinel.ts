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
import { httpLink, listText, putScalar } from './labels.js';
import {
  arr,
  at,
  first,
  idFingerprint,
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
  putScalar(labels, 'incident_number', p['incidentNumber']);
  putScalar(labels, 'incident_name', incident['name']);
  putScalar(labels, 'status', p['status']);
  putScalar(labels, 'severity', p['severity']);
  putScalar(labels, 'classification', p['classification']);
  putScalar(labels, 'classification_reason', p['classificationReason']);
  putScalar(labels, 'classification_comment', p['classificationComment']);
  putScalar(labels, 'provider', p['providerName']);
  putScalar(
    labels,
    'owner',
    first(at(p, 'owner.assignedTo'), at(p, 'owner.email'), at(p, 'owner.userPrincipalName')),
  );
  putScalar(labels, 'tactics', listText(at(p, 'additionalData.tactics')));
  putScalar(labels, 'techniques', listText(at(p, 'additionalData.techniques')));
  putScalar(labels, 'alert_products', listText(at(p, 'additionalData.alertProductNames')));
  putScalar(labels, 'alerts_count', at(p, 'additionalData.alertsCount'));
  putScalar(
    labels,
    'labels',
    listText((arr(p['labels']) ?? []).slice(0, 100).map((l) => at(l, 'labelName'))),
  );
  putScalar(labels, 'workspace_id', b['workspaceId']);
  putScalar(labels, 'subscription_id', at(b, 'workspaceInfo.SubscriptionId'));
  putScalar(labels, 'resource_group', at(b, 'workspaceInfo.ResourceGroupName'));
  putScalar(labels, 'updated_fields', listText(updates?.['updatedFields']));
  putScalar(labels, 'updated_by', at(updates, 'updatedBy.name'));
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
        fingerprint: idFingerprint(SOURCE, id),
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
        link: httpLink(p['incidentUrl']),
      }),
    ],
  };
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['azure-sentinel'],
  detect,
  normalise,
};
