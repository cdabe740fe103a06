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
import { labelWriter } from './labels.js';
import { at, first, hashOf, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'suricata';

/** alert.severity: 1 is the highest priority a rule can carry, 3 and 4 the lowest. */
const SEVERITY: Readonly<Record<string, Severity>> = {
  '1': 'high',
  '2': 'warning',
  '3': 'info',
  '4': 'info',
};

/** Flow ids and other integers past 2^53 lost digits in JSON.parse: not shown. */
const { put: putLabel, putNested } = labelWriter({ exactIntegers: true });

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
  putLabel(labels, 'alert.action', alert['action']);
  putLabel(labels, 'alert.category', category);
  putLabel(labels, 'alert.gid', gid);
  putLabel(labels, 'alert.signature_id', sid);
  putLabel(labels, 'alert.rev', rev);
  putLabel(labels, 'alert.severity', alert['severity']);
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
    putLabel(labels, key, b[key]);
  }
  // EVE's `host` is the sensor's name, not the host under attack.
  putLabel(labels, 'sensor', b['host']);
  putLabel(labels, 'http.hostname', at(b, 'http.hostname'));
  putLabel(labels, 'http.url', at(b, 'http.url'));
  putLabel(labels, 'tls.sni', at(b, 'tls.sni'));
  putNested(labels, 'alert.metadata', alert['metadata']);

  const out = signal({
    source: SOURCE,
    name,
    status: 'firing',
    severity: severity(alert['severity'], SEVERITY),
    // The rule's target when it names one (Suricata 6+ `alert.target`), else the destination.
    resource: first(at(alert, 'target.ip'), dest, src)?.slice(0, 500) ?? null,
    fingerprint: hashOf(SOURCE, `${gid}:${sid ?? name}:${rev ?? ''}`, src, dest),
    started_at: time(b['timestamp']) ?? ctx.receivedAt,
    summary: category !== undefined ? `${name} (${category})` : name,
    labels,
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
