// PagerDuty webhooks: v3 (`event` envelope, one event per body) and legacy v1 (`messages[]`
// batch). Incident events become signals keyed by the incident id; annotations, responder
// requests, status updates and service events are control messages.
import { NotReadableError, Severity, type Normaliser, type Signal } from '../signal.js';
import {
  arr,
  at,
  COMMON_SEVERITY,
  first,
  hashOf,
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
  put(labels, 'event_type', type);
  put(labels, 'status', data['status']);
  put(labels, 'urgency', data['urgency']);
  put(labels, 'priority', at(data, 'priority.summary'));
  put(labels, 'number', data['number']);
  put(labels, 'incident_key', data['incident_key']);
  put(labels, 'service_id', at(data, 'service.id'));
  put(labels, 'escalation_policy', at(data, 'escalation_policy.summary'));
  put(labels, 'teams', summaries(data['teams']));
  put(labels, 'assignees', summaries(data['assignees']));
  put(labels, 'agent', at(event, 'agent.summary'));

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
        fingerprint: idOf(id),
        started_at: time(data['created_at']) ?? occurred ?? receivedAt,
        ended_at: resolved ? (occurred ?? receivedAt) : null,
        summary: name,
        labels,
        link: link(data['html_url']),
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
    put(labels, 'type', type);
    put(labels, 'status', incident['status']);
    put(labels, 'incident_number', incident['incident_number']);
    put(labels, 'incident_key', incident['incident_key']);
    put(labels, 'service_id', at(incident, 'service.id'));
    put(labels, 'assigned_to', at(incident, 'assigned_to_user.name'));
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
        fingerprint: idOf(id),
        started_at: time(incident['created_on']) ?? time(m['created_on']) ?? receivedAt,
        ended_at: resolved
          ? (time(incident['last_status_change_on']) ?? time(m['created_on']) ?? receivedAt)
          : null,
        summary: name,
        labels,
        link: link(incident['html_url']),
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

function put(out: Record<string, string>, key: string, v: unknown): void {
  const s = str(v);
  if (s !== undefined) out[key] = s.slice(0, 1000);
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
