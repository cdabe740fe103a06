// Suricata: one EVE JSON event (a line of eve.json, posted by a forwarder). Only
// `event_type: "alert"` is an alert; every other event type (flow, anomaly, dns, stats, …)
// is acknowledged as a control message (NORMALISATION.md §2, §5). Suricata has no resolve.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { at, first, hashOf, isObject, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'suricata';
const MAX_LABELS = 200;

/** alert.severity: 1 is the highest priority a rule can carry, 3 and 4 the lowest. */
const SEVERITY: Readonly<Record<string, Severity>> = {
  '1': 'high',
  '2': 'warning',
  '3': 'info',
  '4': 'info',
};

/** Label text: primitives as text, arrays of primitives joined with commas, nested values skipped. */
function text(v: unknown): string | undefined {
  if (typeof v === 'boolean') return String(v);
  // An integer past 2^53 (nanosecond times, flow ids) lost digits in JSON.parse: not shown.
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) return undefined;
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

function putAll(labels: Record<string, string>, prefix: string, v: unknown, depth = 0): void {
  if (!isObject(v) || depth > 3) return;
  for (const [k, val] of Object.entries(v)) {
    if (Object.keys(labels).length >= MAX_LABELS) return;
    if (isObject(val)) putAll(labels, `${prefix}.${k}`, val, depth + 1);
    else put(labels, `${prefix}.${k}`, val);
  }
}

/** EVE writes "+0000"; a timestamp without any zone (as in the docs' example) is UTC. */
function utc(v: unknown): string | undefined {
  const s = str(v);
  if (s !== undefined && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(s)) {
    return time(`${s.replace(' ', 'T')}Z`);
  }
  return time(v);
}

function detect(body: unknown): boolean {
  const b = obj(body);
  return (
    b !== undefined &&
    typeof b['event_type'] === 'string' &&
    typeof b['src_ip'] === 'string' &&
    typeof b['dest_ip'] === 'string'
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const eventType = typeof b['event_type'] === 'string' ? str(b['event_type']) : undefined;
  if (eventType === undefined) throw new NotReadableError('event_type is missing');
  if (eventType !== 'alert') {
    return { kind: 'control', reason: `suricata ${eventType.slice(0, 40)} event is not an alert` };
  }
  const alert = obj(b['alert']);
  if (alert === undefined) throw new NotReadableError('alert object is missing');
  const gid = str(alert['gid']) ?? '1';
  const sid = str(alert['signature_id']);
  const rev = str(alert['rev']);
  const signature = str(alert['signature']);
  if (signature === undefined && sid === undefined) {
    throw new NotReadableError('alert.signature is missing');
  }
  const name = signature ?? `Suricata rule ${gid}:${sid ?? ''}`;
  const category = str(alert['category']);
  const src = str(b['src_ip']);
  const dest = str(b['dest_ip']);

  const labels: Record<string, string> = {};
  put(labels, 'alert.action', alert['action']);
  put(labels, 'alert.category', category);
  put(labels, 'alert.gid', gid);
  put(labels, 'alert.signature_id', sid);
  put(labels, 'alert.rev', rev);
  put(labels, 'alert.severity', alert['severity']);
  for (const key of [
    'src_ip',
    'src_port',
    'dest_ip',
    'dest_port',
    'proto',
    'app_proto',
    'flow_id',
    'in_iface',
    'community_id',
  ]) {
    put(labels, key, b[key]);
  }
  // EVE's `host` is the sensor's name, not the host under attack.
  put(labels, 'sensor', b['host']);
  put(labels, 'http.hostname', at(b, 'http.hostname'));
  put(labels, 'http.url', at(b, 'http.url'));
  put(labels, 'tls.sni', at(b, 'tls.sni'));
  putAll(labels, 'alert.metadata', alert['metadata']);

  const out = signal({
    source: SOURCE,
    name,
    status: 'firing',
    severity: severity(alert['severity'], SEVERITY),
    // The rule's target when it names one (Suricata 6+ `alert.target`), else the destination.
    resource: first(at(alert, 'target.ip'), dest, src)?.slice(0, 500) ?? null,
    fingerprint: hashOf(SOURCE, `${gid}:${sid ?? name}:${rev ?? ''}`, src, dest),
    started_at: utc(b['timestamp']) ?? ctx.receivedAt,
    summary: category !== undefined ? `${name} (${category})` : name,
    labels,
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
