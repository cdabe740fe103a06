// Netdata Cloud webhook: alert notifications (`severity` warning/critical fire, clear
// resolves) and node reachability notifications (`status.reachable`) (NORMALISATION.md §2).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type Signal,
} from '../signal.js';
import { first, hashOf, obj, severity, signal, str, time, type JsonObject } from './read.js';

const SOURCE = 'netdata';
const MAX_LABELS = 200;
const ALERT_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  warning: 'warning',
};
const REACHABILITY_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  warning: 'warning',
  info: 'info',
};

/** Label text: primitives as text, arrays of primitives joined with commas, nested values skipped. */
function text(v: unknown): string | undefined {
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    const parts = v
      .slice(0, 100)
      .map((x) => str(x))
      .filter((s): s is string => s !== undefined);
    return parts.length > 0 ? parts.join(',').slice(0, 1000) : undefined;
  }
  return str(v)?.slice(0, 1000);
}

function put(labels: Record<string, string>, key: string, v: unknown): void {
  if (Object.keys(labels).length >= MAX_LABELS) return;
  const t = text(v);
  if (t !== undefined) labels[key] = t;
}

function absolute(v: unknown): string | null {
  const s = str(v);
  return s !== undefined && s.length <= 2000 && /^https?:\/\/[^/\s]+/i.test(s) ? s : null;
}

function alert(b: JsonObject, name: string, ctx: NormaliseContext): Signal {
  const level = typeof b['severity'] === 'string' ? str(b['severity'])?.toLowerCase() : undefined;
  if (level === undefined) throw new NotReadableError('severity is missing');
  const resolved = level === 'clear';
  const chart = str(b['chart']);
  const context = str(b['context']);
  const space = str(b['space']);
  const when = time(b['date']) ?? ctx.receivedAt;
  const rooms = obj(b['rooms']) ?? obj(b['Rooms']);

  const labels: Record<string, string> = {};
  put(labels, 'severity', level);
  put(labels, 'chart', chart);
  put(labels, 'context', context);
  put(labels, 'family', b['family']);
  put(labels, 'class', b['class']);
  put(labels, 'type', b['type']);
  put(labels, 'component', b['component']);
  put(labels, 'info', b['info']);
  put(labels, 'duration', b['duration']);
  put(labels, 'space', space);
  put(labels, 'rooms', rooms === undefined ? undefined : Object.keys(rooms).slice(0, 50));
  put(labels, 'additional_active_critical_alerts', b['additional_active_critical_alerts']);
  put(labels, 'additional_active_warning_alerts', b['additional_active_warning_alerts']);

  return signal({
    source: SOURCE,
    name,
    status: resolved ? 'resolved' : 'firing',
    severity: resolved ? 'unknown' : severity(level, ALERT_SEVERITY),
    service: space?.slice(0, 500) ?? null,
    // Alert notifications carry no host; the chart is the entity that alerted.
    resource: first(b['host'], b['node'], chart)?.slice(0, 500) ?? null,
    fingerprint: hashOf(SOURCE, name, chart, context, space),
    started_at: when,
    ended_at: resolved ? when : null,
    summary: first(b['message'], b['info']) ?? name,
    labels,
    link: absolute(b['alert_url']),
  });
}

function reachability(b: JsonObject, status: JsonObject, ctx: NormaliseContext): Signal {
  const host = str(b['host']);
  if (host === undefined) throw new NotReadableError('host is missing');
  const reachable = status['reachable'] === true;
  const when = time(b['date']) ?? ctx.receivedAt;
  const labels: Record<string, string> = {};
  put(labels, 'status', status['text']);
  put(labels, 'severity', b['severity']);
  put(labels, 'space', b['space']);
  return signal({
    source: SOURCE,
    name: 'Node reachability',
    status: reachable ? 'resolved' : 'firing',
    severity: severity(b['severity'], REACHABILITY_SEVERITY),
    resource: host.slice(0, 500),
    fingerprint: hashOf(SOURCE, 'reachability', host),
    started_at: when,
    ended_at: reachable ? when : null,
    summary: first(b['message'], status['text']) ?? `${host} reachability changed`,
    labels,
    link: absolute(b['url']),
  });
}

function detect(body: unknown): boolean {
  const b = obj(body);
  if (b === undefined) return false;
  const level = b['severity'];
  if (
    typeof b['alert'] === 'string' &&
    typeof b['alert_url'] === 'string' &&
    (level === 'warning' || level === 'critical' || level === 'clear')
  ) {
    return true;
  }
  const status = obj(b['status']);
  return typeof status?.['reachable'] === 'boolean' && typeof b['host'] === 'string';
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const name = typeof b['alert'] === 'string' ? str(b['alert']) : undefined;
  if (name !== undefined) return { kind: 'signals', signals: [alert(b, name, ctx)] };
  const status = obj(b['status']);
  if (status !== undefined && typeof status['reachable'] === 'boolean') {
    return { kind: 'signals', signals: [reachability(b, status, ctx)] };
  }
  throw new NotReadableError('alert is missing');
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
