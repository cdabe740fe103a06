// updown.io: the webhook posts a JSON array of events (a single event object is accepted
// too). check.down fires and check.up resolves the check; the certificate and performance
// events are their own instances of the same check (NORMALISATION.md §2).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type Signal,
  type SignalStatus,
} from '../signal.js';
import { putLabel, putNested } from './labels.js';
import { first, hashOf, isObject, obj, signal, str, time, type JsonObject } from './read.js';

const SOURCE = 'updown';
const MAX_EVENTS = 1000;

interface Kind {
  readonly status: SignalStatus;
  readonly severity: Severity;
  /** Which instance of the check the event is about; undefined for up/down itself. */
  readonly key?: string;
  readonly what?: string;
}

const KINDS: Readonly<Record<string, Kind>> = {
  'check.down': { status: 'firing', severity: 'high' },
  'check.up': { status: 'resolved', severity: 'high' },
  'check.ssl_invalid': { status: 'firing', severity: 'high', key: 'ssl', what: 'SSL certificate' },
  'check.ssl_valid': { status: 'resolved', severity: 'high', key: 'ssl', what: 'SSL certificate' },
  'check.ssl_expiration': {
    status: 'firing',
    severity: 'warning',
    key: 'ssl_expiration',
    what: 'SSL expiration',
  },
  'check.ssl_renewed': {
    status: 'resolved',
    severity: 'warning',
    key: 'ssl_expiration',
    what: 'SSL expiration',
  },
  'check.performance_drop': {
    status: 'firing',
    severity: 'warning',
    key: 'performance',
    what: 'performance',
  },
};

/** The host of an absolute URL, else undefined. */
function hostOf(url: string | undefined): string | undefined {
  if (url === undefined || url.length > 2000 || !/^https?:\/\//i.test(url)) return undefined;
  try {
    return str(new URL(url).host);
  } catch {
    return undefined;
  }
}

function isEvent(v: unknown): v is JsonObject {
  const e = obj(v);
  const event = e?.['event'];
  return typeof event === 'string' && event.startsWith('check.') && isObject(e?.['check']);
}

/** One event as a signal; null for an event type that is not an alert (unknown check.* events). */
function read(e: JsonObject, ctx: NormaliseContext): Signal | null {
  const event = str(e['event']) ?? '';
  const kind = Object.hasOwn(KINDS, event) ? KINDS[event] : undefined;
  if (kind === undefined) return null;
  const check = obj(e['check']) ?? {};
  const token = str(check['token']);
  const url = str(check['url']);
  const base = first(check['alias'], url, token);
  if (base === undefined) throw new NotReadableError('check.url is missing');
  const host = hostOf(url);
  const downtime = obj(e['downtime']);
  const sent = time(e['time']);
  let started: string | undefined;
  let ended: string | undefined;
  if (kind.key === undefined) {
    started = time(downtime?.['started_at']) ?? time(check['down_since']) ?? sent;
    ended = time(downtime?.['ended_at']) ?? sent;
  } else {
    started = sent;
    ended = sent;
  }

  const labels: Record<string, string> = {};
  putLabel(labels, 'event', event);
  putLabel(labels, 'check.token', token);
  putLabel(labels, 'check.url', url);
  putLabel(labels, 'check.alias', check['alias']);
  putLabel(labels, 'check.error', check['error']);
  putLabel(labels, 'check.last_status', check['last_status']);
  putLabel(labels, 'check.uptime', check['uptime']);
  putLabel(labels, 'check.period', check['period']);
  putLabel(labels, 'downtime.id', downtime?.['id']);
  putLabel(labels, 'downtime.error', downtime?.['error']);
  putLabel(labels, 'downtime.duration', downtime?.['duration']);
  putLabel(labels, 'downtime.partial', downtime?.['partial']);
  putNested(labels, 'ssl', e['ssl']);

  const instance = kind.key === undefined ? '' : `:${kind.key}`;
  return signal({
    source: SOURCE,
    name: kind.what === undefined ? base : `${base} (${kind.what})`,
    status: kind.status,
    severity: kind.severity,
    resource: (host ?? url)?.slice(0, 500) ?? null,
    fingerprint:
      token !== undefined && token.length <= 200
        ? `${SOURCE}:${token}${instance}`
        : hashOf(SOURCE, token ?? url ?? base, kind.key),
    started_at: started ?? ctx.receivedAt,
    ended_at: kind.status === 'resolved' ? (ended ?? ctx.receivedAt) : null,
    summary: first(e['description'], check['error']) ?? base,
    labels,
    link: host !== undefined && url !== undefined && url.length <= 2000 ? url : null,
  });
}

function detect(body: unknown): boolean {
  return isEvent(Array.isArray(body) ? body[0] : body);
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  if (Array.isArray(body)) {
    if (body.length > MAX_EVENTS) throw new NotReadableError(`more than ${MAX_EVENTS} events`);
    const signals: Signal[] = [];
    for (const [i, e] of body.entries()) {
      if (!isEvent(e)) throw new NotReadableError(`element ${i} is not an updown event`);
      const s = read(e, ctx);
      if (s !== null) signals.push(s);
    }
    if (body.length > 0 && signals.length === 0) {
      return { kind: 'control', reason: 'updown events are not alerts' };
    }
    return { kind: 'signals', signals };
  }
  if (!isEvent(body)) throw new NotReadableError('not an updown check event');
  const s = read(body, ctx);
  if (s === null) return { kind: 'control', reason: 'updown event is not an alert' };
  return { kind: 'signals', signals: [s] };
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['updown-io'],
  detect,
  normalise,
};
