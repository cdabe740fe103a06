// Checkmk: the JSON a notification script builds from Checkmk's NOTIFY_* variables (Keep's
// webhook script shape, NORMALISATION.md §2): `what` HOST or SERVICE, `notification_type`
// PROBLEM fires, RECOVERY resolves; acknowledgements, downtimes, flapping and custom
// notifications are control.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { hostLink, putLabel } from './labels.js';
import { first, hashOf, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'checkmk';

/** Service states (long and short forms) and host states. */
const SERVICE_STATE: Readonly<Record<string, Severity>> = {
  crit: 'critical',
  critical: 'critical',
  warn: 'warning',
  warning: 'warning',
  unkn: 'unknown',
  unknown: 'unknown',
  ok: 'info',
};
const HOST_STATE: Readonly<Record<string, Severity>> = {
  down: 'critical',
  unreach: 'warning',
  unreachable: 'warning',
  up: 'info',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Unambiguous zone abbreviations `date` writes in NOTIFY_LONGDATETIME. */
const ZONES: Readonly<Record<string, string>> = {
  UTC: '+00:00',
  GMT: '+00:00',
  Z: '+00:00',
  WET: '+00:00',
  WEST: '+01:00',
  BST: '+01:00',
  CET: '+01:00',
  CEST: '+02:00',
  MET: '+01:00',
  MEST: '+02:00',
  EET: '+02:00',
  EEST: '+03:00',
  EST: '-05:00',
  EDT: '-04:00',
  CDT: '-05:00',
  MST: '-07:00',
  MDT: '-06:00',
  PST: '-08:00',
  PDT: '-07:00',
  JST: '+09:00',
  AEST: '+10:00',
  AEDT: '+11:00',
};

/** NOTIFY_LONGDATETIME, e.g. "Sat Oct 26 23:20:39 UTC 2024"; undefined for an unknown zone. */
function longDateTime(v: unknown): string | undefined {
  const s = str(v);
  if (s === undefined || s.length > 100) return undefined;
  const m =
    /^[A-Za-z]{3}\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\S+)\s+(\d{4})$/.exec(s);
  if (m === null) return undefined;
  const [, mon = '', day = '', hh = '', mm = '', ss = '', zone = '', year = ''] = m;
  const month = MONTHS.indexOf(mon.slice(0, 1).toUpperCase() + mon.slice(1).toLowerCase());
  const numeric = /^([+-]\d{2}):?(\d{2})$/.exec(zone);
  const offset =
    numeric !== null
      ? `${numeric[1]}:${numeric[2]}`
      : Object.hasOwn(ZONES, zone.toUpperCase())
        ? ZONES[zone.toUpperCase()]
        : undefined;
  if (month < 0 || offset === undefined) return undefined;
  const pad = (n: string | number): string => String(n).padStart(2, '0');
  return time(`${year}-${pad(month + 1)}-${pad(day)}T${hh}:${mm}:${ss}${offset}`);
}

function detect(body: unknown): boolean {
  const b = obj(body);
  return (
    b !== undefined &&
    (b['what'] === 'HOST' || b['what'] === 'SERVICE') &&
    typeof b['notification_type'] === 'string'
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const what = typeof b['what'] === 'string' ? b['what'].trim().toUpperCase() : undefined;
  if (what !== 'HOST' && what !== 'SERVICE') throw new NotReadableError('what is missing');
  const type = typeof b['notification_type'] === 'string' ? str(b['notification_type']) : undefined;
  if (type === undefined) throw new NotReadableError('notification_type is missing');
  const host = first(b['host'], b['address']);
  if (host === undefined) throw new NotReadableError('host is missing');
  const serviceDesc = what === 'SERVICE' ? str(b['service']) : undefined;
  if (what === 'SERVICE' && serviceDesc === undefined) {
    throw new NotReadableError('service is missing');
  }
  const kind = type.toUpperCase();
  if (kind !== 'PROBLEM' && kind !== 'RECOVERY') {
    return { kind: 'control', reason: `checkmk ${kind.slice(0, 40)} notification` };
  }
  const resolved = kind === 'RECOVERY';
  const site = str(b['site']);
  const when = time(b['micro_time']) ?? longDateTime(b['long_date_time']) ?? ctx.receivedAt;
  const url = str(b['url']);

  const labels: Record<string, string> = {};
  putLabel(labels, 'what', what);
  putLabel(labels, 'notification_type', kind);
  putLabel(labels, 'event', b['event']);
  putLabel(labels, 'state', what === 'SERVICE' ? b['severity'] : b['status']);
  putLabel(labels, 'site', site);
  putLabel(labels, 'host', b['host']);
  putLabel(labels, 'alias', b['alias']);
  putLabel(labels, 'address', b['address']);
  putLabel(labels, 'service_description', serviceDesc);
  putLabel(labels, 'check_command', b['check_command']);
  putLabel(labels, 'problem_id', b['id']);
  putLabel(labels, 'contact_name', b['contact_name']);
  putLabel(labels, 'long_output', b['long_output']);
  putLabel(labels, 'perf_data', b['perf_data']);
  putLabel(labels, 'url', url);

  const out = signal({
    source: SOURCE,
    // A host notification is about the host's state; the host itself is the resource.
    name: serviceDesc ?? 'Host state',
    status: resolved ? 'resolved' : 'firing',
    severity:
      what === 'SERVICE'
        ? severity(b['severity'], SERVICE_STATE)
        : severity(b['status'], HOST_STATE),
    resource: host.slice(0, 500),
    fingerprint: hashOf(SOURCE, site, host, serviceDesc),
    started_at: when,
    ended_at: resolved ? when : null,
    summary: first(b['output'], b['summary']) ?? `${host} ${serviceDesc ?? 'host state'}`,
    labels,
    // Checkmk sends a path relative to its own base URL; only an absolute one is a link.
    link: hostLink(url),
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
