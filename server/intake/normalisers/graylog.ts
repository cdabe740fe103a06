// Graylog: the Events "HTTP Notification" (4.x and later: event_definition_*, event{…}) and the
// legacy 2.x stream alert callback (check_result, stream). Graylog never sends a resolve.
// NORMALISATION.md §2 (graylog).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { listText, putScalarOrList } from './labels.js';
import {
  arr,
  at,
  first,
  hashOf,
  idFingerprint,
  isObject,
  obj,
  severity,
  signal,
  time,
  type JsonObject,
} from './read.js';

const SOURCE = 'graylog';

/** `event.priority`: 1 low, 2 normal, 3 high, 4 critical (newer versions). */
const PRIORITY: Readonly<Record<string, Severity>> = {
  '1': 'info',
  '2': 'warning',
  '3': 'high',
  '4': 'critical',
};

function isEvents(b: JsonObject): boolean {
  return typeof b['event_definition_id'] === 'string' && isObject(b['event']);
}

function isLegacy(b: JsonObject): boolean {
  return isObject(b['check_result']) && isObject(b['stream']);
}

function detect(body: unknown): boolean {
  return isObject(body) && (isEvents(body) || isLegacy(body));
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('a Graylog notification body is a JSON object');
  if (b['event_definition_id'] !== undefined || b['event'] !== undefined) return events(b, ctx);
  if (b['check_result'] !== undefined || b['stream'] !== undefined) return legacy(b, ctx);
  throw new NotReadableError(
    'neither an event notification (event) nor a stream alert (check_result)',
  );
}

function events(b: JsonObject, ctx: NormaliseContext): NormaliseResult {
  const event = obj(b['event']);
  if (event === undefined) throw new NotReadableError('event is not an object');
  const definition = first(b['event_definition_id'], event['event_definition_id']);
  if (definition === undefined) throw new NotReadableError('event_definition_id is missing');
  const name = first(b['event_definition_title'], event['message'], definition) ?? definition;
  const group = first(event['key']);
  const fields = obj(event['fields']) ?? {};
  const groupBy = obj(event['group_by_fields']) ?? {};
  const labels: Record<string, string> = {};
  putScalarOrList(labels, 'event_definition_id', definition);
  putScalarOrList(
    labels,
    'event_definition_type',
    first(b['event_definition_type'], event['event_definition_type']),
  );
  putScalarOrList(labels, 'event_id', event['id']);
  putScalarOrList(labels, 'event_key', group);
  putScalarOrList(labels, 'priority', event['priority']);
  putScalarOrList(labels, 'alert', event['alert']);
  putScalarOrList(labels, 'source_streams', listText(event['source_streams']));
  putScalarOrList(labels, 'query', at(event, 'replay_info.query'));
  putScalarOrList(labels, 'backlog', arr(b['backlog'])?.length);
  for (const [k, v] of Object.entries(fields).slice(0, 100))
    putScalarOrList(labels, `field.${k}`, v);
  for (const [k, v] of Object.entries(groupBy).slice(0, 100))
    putScalarOrList(labels, `group_by.${k}`, v);
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status: 'firing',
        severity: severity(event['priority'], PRIORITY),
        // The body names no service (streams are ids); a `service` field or group-by does.
        service: first(groupBy['service'], fields['service']) ?? null,
        resource: first(event['source']) ?? null,
        // One definition fires once per group-by key.
        fingerprint: idFingerprint(
          SOURCE,
          group === undefined ? definition : `${definition}:${group}`,
        ),
        started_at:
          time(event['timestamp']) ?? time(event['timestamp_processing']) ?? ctx.receivedAt,
        summary: first(event['message'], b['event_definition_description'], name) ?? name,
        labels,
        link: null,
      }),
    ],
  };
}

function legacy(b: JsonObject, ctx: NormaliseContext): NormaliseResult {
  const check = obj(b['check_result']);
  const stream = obj(b['stream']);
  if (check === undefined) throw new NotReadableError('check_result is not an object');
  if (stream === undefined) throw new NotReadableError('stream is not an object');
  const condition = obj(check['triggered_condition']) ?? {};
  const title = first(stream['title']);
  const name = first(title, condition['title'], stream['id']);
  if (name === undefined) throw new NotReadableError('stream.title is missing');
  const id = first(condition['id']);
  const labels: Record<string, string> = {};
  putScalarOrList(labels, 'stream_id', stream['id']);
  putScalarOrList(labels, 'stream_description', stream['description']);
  putScalarOrList(labels, 'condition_id', id);
  putScalarOrList(labels, 'condition_type', first(condition['type_string'], condition['type']));
  putScalarOrList(labels, 'condition_title', condition['title']);
  putScalarOrList(labels, 'condition', condition['description']);
  const parameters = obj(condition['parameters']) ?? {};
  for (const [k, v] of Object.entries(parameters).slice(0, 50))
    putScalarOrList(labels, `condition.${k}`, v);
  putScalarOrList(labels, 'matching_messages', arr(check['matching_messages'])?.length);
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status: 'firing',
        severity: 'unknown',
        service: title ?? null,
        resource: first(at(check, 'matching_messages.0.source')) ?? null,
        fingerprint:
          id === undefined
            ? hashOf(SOURCE, first(stream['id']) ?? name)
            : idFingerprint(SOURCE, id),
        started_at: time(check['triggered_at']) ?? ctx.receivedAt,
        summary: first(check['result_description'], name) ?? name,
        labels,
        link: null,
      }),
    ],
  };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
