// Zabbix webhook media type: the body is whatever the media type's parameters build, so this
// reads the documented template: hostname, trigger, status, severity, item, link (Zulip's
// template), plus the optional event_id ({EVENT.ID}), event_timestamp ({EVENT.TIMESTAMP}),
// recovery_timestamp ({EVENT.RECOVERY.TIMESTAMP}), host_groups ({TRIGGER.HOSTGROUP.NAME}),
// tags ({EVENT.TAGSJSON} or {EVENT.TAGS}), opdata and service. Unexpanded macros count as
// missing. NORMALISATION.md §2 (zabbix), §3.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type SignalStatus,
} from '../signal.js';
import { httpLink, labelSetter } from './labels.js';
import { arr, hashOf, idFingerprint, isObject, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'zabbix';

/** Trigger severity by name ({EVENT.SEVERITY}) or number ({EVENT.NSEVERITY}). */
const SEVERITY: Readonly<Record<string, Severity>> = {
  disaster: 'critical',
  high: 'high',
  average: 'warning',
  warning: 'warning',
  information: 'info',
  'not classified': 'unknown',
  '5': 'critical',
  '4': 'high',
  '3': 'warning',
  '2': 'warning',
  '1': 'info',
  '0': 'unknown',
};

/** {TRIGGER.STATUS} PROBLEM / OK, {EVENT.STATUS} PROBLEM / RESOLVED. */
const STATUS: Readonly<Record<string, SignalStatus>> = {
  problem: 'firing',
  resolved: 'resolved',
  ok: 'resolved',
};

/** Problem updates (acknowledgements, comments, severity changes) are not state changes. */
const UPDATE = new Set(['update', 'updated', 'acknowledged']);

/** Keys read into fields; every other top-level value becomes a label. */
const MAPPED = new Set(['hostname', 'trigger', 'status', 'link', 'tags', 'service']);

const MACRO = /^\{\$?[A-Za-z0-9_.]+\}$/;

/** A non-empty string that is not an unexpanded macro. */
function val(v: unknown): string | undefined {
  const s = str(v);
  return s === undefined || MACRO.test(s) ? undefined : s;
}

/** Labels skip unexpanded macros too; booleans are written as text. */
const putExpanded = labelSetter((v) => (typeof v === 'boolean' ? String(v) : val(v)));

function detect(body: unknown): boolean {
  return (
    isObject(body) &&
    typeof body['hostname'] === 'string' &&
    typeof body['trigger'] === 'string' &&
    typeof body['status'] === 'string' &&
    (typeof body['severity'] === 'string' || typeof body['severity'] === 'number')
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('a Zabbix webhook body is a JSON object');
  const name = val(b['trigger']);
  const state = val(b['status'])?.toLowerCase();
  if (name === undefined) throw new NotReadableError('trigger is missing');
  if (state === undefined) throw new NotReadableError('status is missing');
  if (UPDATE.has(state)) return { kind: 'control', reason: `zabbix problem ${state}` };
  const status = Object.hasOwn(STATUS, state) ? STATUS[state] : undefined;
  if (status === undefined) {
    return { kind: 'control', reason: `zabbix status ${state.slice(0, 64)} is not a state change` };
  }
  const host = val(b['hostname']);
  const link = val(b['link']);
  const query = queryOf(link);
  const eventId = val(b['event_id']) ?? val(b['eventid']) ?? str(query.get('eventid'));
  const triggerId = str(query.get('triggerid'));
  const tags = tagsOf(b['tags']);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(b).slice(0, 200)) {
    if (!MAPPED.has(k)) putExpanded(labels, k, v);
  }
  for (const [k, v] of Object.entries(tags)) putExpanded(labels, `tag.${k}`, v);
  if (eventId !== undefined) putExpanded(labels, 'event_id', eventId);
  putExpanded(labels, 'trigger_id', triggerId);
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status,
        severity: severity(val(b['severity']), SEVERITY),
        service: val(b['service']) ?? str(tags['service']) ?? null,
        resource: host ?? null,
        // {EVENT.ID}: a recovery carries the id of the problem event it ends.
        fingerprint:
          eventId === undefined
            ? hashOf(SOURCE, triggerId ?? name, host)
            : idFingerprint(SOURCE, eventId),
        started_at: time(b['event_timestamp']) ?? ctx.receivedAt,
        ended_at: status === 'resolved' ? (time(b['recovery_timestamp']) ?? ctx.receivedAt) : null,
        summary: name,
        labels,
        link: httpLink(link),
      }),
    ],
  };
}

function queryOf(link: string | undefined): URLSearchParams {
  const i = link?.indexOf('?') ?? -1;
  return new URLSearchParams(link === undefined || i < 0 ? '' : link.slice(i + 1, i + 2001));
}

/** {EVENT.TAGSJSON} (a list of {tag, value}) or {EVENT.TAGS} ("tag:value, tag2:value2"). */
function tagsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const list = arr(v);
  if (list !== undefined) {
    for (const t of list.slice(0, 100)) {
      const k = val(obj(t)?.['tag']);
      if (k !== undefined) out[k] = val(obj(t)?.['value']) ?? '';
    }
    return out;
  }
  for (const part of (val(v) ?? '').split(',').slice(0, 100)) {
    const i = part.indexOf(':');
    const k = (i < 0 ? part : part.slice(0, i)).trim();
    if (k !== '') out[k] = i < 0 ? '' : part.slice(i + 1).trim();
  }
  return out;
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
