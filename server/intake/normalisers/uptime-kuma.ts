// Uptime Kuma: the webhook notification `{heartbeat, monitor, msg}` (application/json body,
// NORMALISATION.md §2). heartbeat.status 0 (DOWN) fires, 1 (UP) resolves; 2 (PENDING) and
// 3 (MAINTENANCE) are control. A body with neither monitor nor heartbeat (the "Testing"
// notification, certificate-expiry notices) is control too.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
} from '../signal.js';
import { hostLink, putLabel } from './labels.js';
import { arr, first, hashOf, isObject, obj, prefixedId, signal, str, time } from './read.js';

const SOURCE = 'uptime-kuma';

/** heartbeat.localDateTime with heartbeat.timezoneOffset, else heartbeat.time (UTC). */
function beatTime(heartbeat: Record<string, unknown>): string | undefined {
  const local = str(heartbeat['localDateTime']);
  const offset = str(heartbeat['timezoneOffset']);
  const plain = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?$/;
  if (local !== undefined && offset !== undefined && plain.test(local)) {
    const zone = /^([+-]\d{2}):?(\d{2})$/.exec(offset);
    if (zone !== null) return time(`${local.replace(' ', 'T')}${zone[1]}:${zone[2]}`);
  }
  return time(str(heartbeat['time']));
}

/** heartbeat.status as a number (Kuma sends a number; a numeric string is accepted). */
function statusOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*\d\s*$/.test(v)) return Number(v);
  return undefined;
}

/** A tag named "service" (Kuma tags are `{name, value}`), else the group of a grouped monitor. */
function serviceOf(monitor: Record<string, unknown>): string | undefined {
  for (const tag of (arr(monitor['tags']) ?? []).slice(0, 100)) {
    if (isObject(tag) && str(tag['name'])?.toLowerCase() === 'service') {
      const value = str(tag['value']);
      if (value !== undefined) return value;
    }
  }
  const path = str(monitor['pathName']);
  const cut = path?.lastIndexOf(' / ') ?? -1;
  return path !== undefined && cut > 0 ? str(path.slice(0, cut)) : undefined;
}

function detect(body: unknown): boolean {
  const b = obj(body);
  if (b === undefined) return false;
  if (isObject(b['heartbeat']) && isObject(b['monitor'])) return true;
  // The test notification: both keys present and null, with a message.
  return b['heartbeat'] === null && b['monitor'] === null && typeof b['msg'] === 'string';
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  if (b['heartbeat'] === null && b['monitor'] === null && typeof b['msg'] === 'string') {
    return { kind: 'control', reason: 'uptime-kuma notification without monitor or heartbeat' };
  }
  const monitor = obj(b['monitor']);
  if (monitor === undefined) throw new NotReadableError('monitor object is missing');
  const heartbeat = obj(b['heartbeat']);
  if (heartbeat === undefined) throw new NotReadableError('heartbeat object is missing');
  const code = statusOf(heartbeat['status']);
  if (code === undefined) throw new NotReadableError('heartbeat.status is missing');
  if (code === 2) return { kind: 'control', reason: 'uptime-kuma monitor is pending' };
  if (code === 3) return { kind: 'control', reason: 'uptime-kuma monitor is in maintenance' };
  if (code !== 0 && code !== 1) {
    return { kind: 'control', reason: `uptime-kuma heartbeat status ${code} is not a transition` };
  }
  const status = code === 0 ? 'firing' : 'resolved';
  const id = str(monitor['id']);
  const name = first(monitor['name'], id === undefined ? undefined : `monitor ${id}`);
  if (name === undefined) throw new NotReadableError('monitor.name is missing');
  // Kuma leaves a bare "https://" in the url of non-HTTP monitors: not a link.
  const url = hostLink(monitor['url']);
  const when = beatTime(heartbeat) ?? ctx.receivedAt;

  const labels: Record<string, string> = {};
  putLabel(labels, 'monitor.id', id);
  putLabel(labels, 'monitor.type', monitor['type']);
  putLabel(labels, 'monitor.pathName', monitor['pathName']);
  putLabel(labels, 'monitor.hostname', monitor['hostname']);
  putLabel(labels, 'monitor.port', monitor['port']);
  putLabel(labels, 'monitor.url', url);
  putLabel(labels, 'heartbeat.msg', heartbeat['msg']);
  putLabel(labels, 'heartbeat.ping', heartbeat['ping']);
  putLabel(labels, 'heartbeat.important', heartbeat['important']);
  putLabel(labels, 'heartbeat.duration', heartbeat['duration']);
  for (const tag of (arr(monitor['tags']) ?? []).slice(0, 50)) {
    const tagName = isObject(tag) ? str(tag['name']) : undefined;
    if (isObject(tag) && tagName !== undefined) {
      putLabel(labels, `tag.${tagName.slice(0, 100)}`, str(tag['value']) ?? 'true');
    }
  }

  const out = signal({
    source: SOURCE,
    name,
    status,
    // Kuma has no severity: a monitor that is down is treated as high.
    severity: 'high',
    service: serviceOf(monitor)?.slice(0, 500) ?? null,
    resource: first(monitor['hostname'], url)?.slice(0, 500) ?? null,
    fingerprint: id !== undefined ? prefixedId(SOURCE, id) : hashOf(SOURCE, name),
    started_at: when,
    ended_at: status === 'resolved' ? when : null,
    summary: first(b['msg'], heartbeat['msg']) ?? name,
    labels,
    link: url,
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['uptimekuma', 'kuma'],
  detect,
  normalise,
};
