// PagerDuty webhooks: v3 (`event` envelope, one event per body) and legacy v1 (`messages[]`
// batch). Incident events become signals keyed by the incident id; annotations, responder
// requests, status updates and service events are control messages.
import { NotReadableError, Severity, type Normaliser, type Signal } from '../signal.js';
import { absoluteLink, putString } from './labels.js';
import {
  arr,
  at,
  COMMON_SEVERITY,
  dedupKey,
  first,
  obj,
  required,
  severity,
  signal,
  str,
  time,
  type Json,
  type JsonObject,
} from './read.js';

const SOURCE = 'pagerduty';

/** v3 incident events that mean "still open". */
const V3_FIRING = new Set([
  'incident.triggered',
  'incident.acknowledged',
  'incident.unacknowledged',
  'incident.reopened',
  'incident.priority_updated',
  'incident.escalated',
  'incident.reassigned',
  'incident.delegated',
]);
/** v1 message types that mean "still open". */
const V1_FIRING = new Set([
  'incident.trigger',
  'incident.acknowledge',
  'incident.unacknowledge',
  'incident.assign',
  'incident.escalate',
  'incident.delegate',
]);

export const normaliser: Normaliser = {
  source: SOURCE,
  detect(body) {
    const b = obj(body);
    if (b === undefined) return false;
    const event = obj(b['event']);
    if (event !== undefined) {
      return typeof event['event_type'] === 'string' && typeof event['resource_type'] === 'string';
    }
    const type = at(b, 'messages.0.type');
    return typeof type === 'string' && type.startsWith('incident.');
  },
  normalise(body, ctx) {
    const b = obj(body);
    if (b === undefined) throw new NotReadableError('body is not an object');
    const event = obj(b['event']);
    if (event !== undefined) return v3(event, ctx.receivedAt);
    const messages = arr(b['messages']);
    if (messages !== undefined) return v1(messages, ctx.receivedAt);
    throw new NotReadableError('neither event (v3) nor messages[] (v1)');
  },
};

function v3(event: JsonObject, receivedAt: string): ReturnType<Normaliser['normalise']> {
  const type = required(str(event['event_type']), 'event.event_type');
  if (str(event['resource_type']) !== 'incident' || !type.startsWith('incident.')) {
    return { kind: 'control', reason: `PagerDuty ${type} event is not about an incident` };
  }
  const resolved = type === 'incident.resolved';
  if (!resolved && !V3_FIRING.has(type)) {
    return { kind: 'control', reason: `PagerDuty ${type} is an update, not a state change` };
  }
  const data = obj(event['data']);
  if (data === undefined) throw new NotReadableError('event.data is not an object');
  const id = required(str(data['id']), 'event.data.id');
  const name = required(first(data['title'], data['summary']), 'event.data.title');
  const occurred = time(event['occurred_at']);
  const service = str(at(data, 'service.summary')) ?? null;
  const prioritySeverity = severity(at(data, 'priority.summary'), COMMON_SEVERITY);

  const labels: Record<string, string> = {};
  putString(labels, 'event_type', type);
  putString(labels, 'status', data['status']);
  putString(labels, 'urgency', data['urgency']);
  putString(labels, 'priority', at(data, 'priority.summary'));
  putString(labels, 'number', data['number']);
  putString(labels, 'incident_key', data['incident_key']);
  putString(labels, 'service_id', at(data, 'service.id'));
  putString(labels, 'escalation_policy', at(data, 'escalation_policy.summary'));
  putString(labels, 'teams', summaries(data['teams']));
  putString(labels, 'assignees', summaries(data['assignees']));
  putString(labels, 'agent', at(event, 'agent.summary'));

  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status: resolved ? 'resolved' : 'firing',
        severity:
          prioritySeverity !== Severity.Unknown
            ? prioritySeverity
            : severity(data['urgency'], COMMON_SEVERITY),
        service,
        resource: service,
        fingerprint: dedupKey(SOURCE, id),
        started_at: time(data['created_at']) ?? occurred ?? receivedAt,
        ended_at: resolved ? (occurred ?? receivedAt) : null,
        summary: name,
        labels,
        link: absoluteLink(data['html_url']),
      }),
    ],
  };
}

function v1(messages: Json[], receivedAt: string): ReturnType<Normaliser['normalise']> {
  const signals: Signal[] = [];
  messages.forEach((element, i) => {
    const m = obj(element);
    if (m === undefined) throw new NotReadableError(`messages[${String(i)}] is not an object`);
    const type = str(m['type']) ?? '';
    const resolved = type === 'incident.resolve';
    if (!resolved && !V1_FIRING.has(type)) return;
    const incident = obj(at(m, 'data.incident'));
    if (incident === undefined) {
      throw new NotReadableError(`messages[${String(i)}].data.incident is not an object`);
    }
    const id = required(str(incident['id']), `messages[${String(i)}].data.incident.id`);
    const service = str(at(incident, 'service.name')) ?? null;
    const labels: Record<string, string> = {};
    putString(labels, 'type', type);
    putString(labels, 'status', incident['status']);
    putString(labels, 'incident_number', incident['incident_number']);
    putString(labels, 'incident_key', incident['incident_key']);
    putString(labels, 'service_id', at(incident, 'service.id'));
    putString(labels, 'assigned_to', at(incident, 'assigned_to_user.name'));
    const name =
      first(
        at(incident, 'trigger_summary_data.subject'),
        at(incident, 'trigger_summary_data.description'),
        incident['incident_key'],
      ) ?? id;
    signals.push(
      signal({
        source: SOURCE,
        name,
        status: resolved ? 'resolved' : 'firing',
        severity: severity(incident['urgency'], COMMON_SEVERITY),
        service,
        resource: service,
        fingerprint: dedupKey(SOURCE, id),
        started_at: time(incident['created_on']) ?? time(m['created_on']) ?? receivedAt,
        ended_at: resolved
          ? (time(incident['last_status_change_on']) ?? time(m['created_on']) ?? receivedAt)
          : null,
        summary: name,
        labels,
        link: absoluteLink(incident['html_url']),
      }),
    );
  });
  if (signals.length === 0 && messages.length > 0) {
    return { kind: 'control', reason: 'PagerDuty v1 messages hold no incident state change' };
  }
  return { kind: 'signals', signals };
}

/** `summary` of each reference in a list (teams, assignees), comma-separated. */
function summaries(v: unknown): string | undefined {
  const names = (arr(v) ?? []).slice(0, 50).flatMap((x) => str(obj(x)?.['summary']) ?? []);
  return names.length === 0 ? undefined : names.join(', ');
}
