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
import { hostLink, putLabel } from './labels.js';
import { first, hashOf, obj, severity, signal, str, time, type JsonObject } from './read.js';

const SOURCE = 'netdata';
const ALERT_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  warning: 'warning',
};
const REACHABILITY_SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  warning: 'warning',
  info: 'info',
};

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
  putLabel(labels, 'severity', level);
  putLabel(labels, 'chart', chart);
  putLabel(labels, 'context', context);
  putLabel(labels, 'family', b['family']);
  putLabel(labels, 'class', b['class']);
  putLabel(labels, 'type', b['type']);
  putLabel(labels, 'component', b['component']);
  putLabel(labels, 'info', b['info']);
  putLabel(labels, 'duration', b['duration']);
  putLabel(labels, 'space', space);
  putLabel(labels, 'rooms', rooms === undefined ? undefined : Object.keys(rooms).slice(0, 50));
  putLabel(labels, 'additional_active_critical_alerts', b['additional_active_critical_alerts']);
  putLabel(labels, 'additional_active_warning_alerts', b['additional_active_warning_alerts']);

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
    link: hostLink(b['alert_url']),
  });
}

function reachability(b: JsonObject, status: JsonObject, ctx: NormaliseContext): Signal {
  const host = str(b['host']);
  if (host === undefined) throw new NotReadableError('host is missing');
  const reachable = status['reachable'] === true;
  const when = time(b['date']) ?? ctx.receivedAt;
  const labels: Record<string, string> = {};
  putLabel(labels, 'status', status['text']);
  putLabel(labels, 'severity', b['severity']);
  putLabel(labels, 'space', b['space']);
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
    link: hostLink(b['url']),
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
