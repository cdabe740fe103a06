// Opsgenie outgoing webhook: one alert action per body. Create/UnAcknowledge → firing,
// Close/Delete → resolved; every other action (Acknowledge, AddNote, AddTags, …) is an update
// without a state change, acknowledged as a control message.
import { NotReadableError, type Normaliser } from '../signal.js';
import { flatten, putString } from './labels.js';
import {
  arr,
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

const SOURCE = 'opsgenie';
const FIRING = new Set(['create', 'unacknowledge']);
const RESOLVED = new Set(['close', 'delete']);

export const normaliser: Normaliser = {
  source: SOURCE,
  detect(body) {
    const b = obj(body);
    const alert = obj(b?.['alert']);
    return (
      typeof b?.['action'] === 'string' &&
      alert !== undefined &&
      str(alert['alertId']) !== undefined
    );
  },
  normalise(body, ctx) {
    const b = obj(body);
    if (b === undefined) throw new NotReadableError('body is not an object');
    const action = required(str(b['action']), 'action');
    const alert = obj(b['alert']);
    if (alert === undefined) throw new NotReadableError('alert is not an object');
    const alertId = required(str(alert['alertId']), 'alert.alertId');
    const key = action.toLowerCase();
    const resolved = RESOLVED.has(key);
    if (!resolved && !FIRING.has(key)) {
      return { kind: 'control', reason: `Opsgenie ${action} is an update, not a state change` };
    }
    const name = first(alert['message'], alert['alias']) ?? alertId;
    return {
      kind: 'signals',
      signals: [
        signal({
          source: SOURCE,
          name,
          status: resolved ? 'resolved' : 'firing',
          severity: severity(priorityOf(alert['priority']), COMMON_SEVERITY),
          service: teamOf(alert['teams']) ?? null,
          resource: str(alert['entity']) ?? null,
          fingerprint: dedupKey(SOURCE, first(alert['alias'], alertId) ?? alertId),
          // createdAt is epoch ms, updatedAt epoch ns: time() tells them apart by size.
          started_at: time(alert['createdAt']) ?? ctx.receivedAt,
          ended_at: resolved ? (time(alert['updatedAt']) ?? ctx.receivedAt) : null,
          summary: name,
          labels: labelsOf(b, alert, action),
          // The body does not name the account's Opsgenie domain, so no link can be built.
          link: null,
        }),
      ],
    };
  },
};

/** "P1".."P5" as documented, or the bare number 1..5 seen in captures. */
function priorityOf(v: unknown): string | undefined {
  const p = str(v);
  if (p === undefined) return undefined;
  return /^[1-5]$/.test(p) ? `P${p}` : p;
}

/** The first team: a name, or an object with `name`. */
function teamOf(v: unknown): string | undefined {
  const team = (arr(v) ?? [])[0];
  return first(team, obj(team)?.['name']);
}

function labelsOf(b: JsonObject, alert: JsonObject, action: string): Record<string, string> {
  const out: Record<string, string> = {};
  putString(out, 'action', action);
  for (const key of ['alertId', 'tinyId', 'alias', 'source', 'entity', 'priority', 'username']) {
    putString(out, key, alert[key]);
  }
  putString(out, 'integrationName', b['integrationName']);
  const tags = (arr(alert['tags']) ?? []).slice(0, 100).flatMap((t) => str(t) ?? []);
  if (tags.length > 0) putString(out, 'tags', tags.join(','));
  const teams = (arr(alert['teams']) ?? [])
    .slice(0, 50)
    .flatMap((t) => first(t, obj(t)?.['name']) ?? []);
  if (teams.length > 0) putString(out, 'teams', teams.join(','));
  Object.assign(out, flatten(alert['details'], 'details'));
  return out;
}
