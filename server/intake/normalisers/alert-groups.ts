// Alertmanager and Grafana unified alerting post the same group body: `alerts[]` of alerts
// with labels, annotations, status, startsAt/endsAt and fingerprint, plus group fields
// (NORMALISATION.md §2, §4b rule 7). One parser for both; each source file picks its flavour.
import {
  NotReadableError,
  SignalStatus,
  type NormaliseContext,
  type NormaliseResult,
  type Signal,
} from '../signal.js';
import { absoluteLink, putScalar } from './labels.js';
import {
  arr,
  COMMON_SEVERITY,
  dedupKey,
  first,
  hashOf,
  obj,
  severity,
  signal,
  str,
  time,
  type Json,
  type JsonObject,
} from './read.js';

export type GroupSource = 'alertmanager' | 'grafana';

/** Keys that only Grafana puts on an alert of the group. */
const GRAFANA_ALERT_KEYS = ['silenceURL', 'valueString', 'values', 'dashboardURL', 'panelURL'];
/** Enough alerts to tell the flavour; a body of thousands is not scanned whole by detect. */
const SCAN = 50;

/** `alerts[]` + `groupKey`: the shape both senders share. */
export function isAlertGroup(body: unknown): body is JsonObject {
  const b = obj(body);
  if (b === undefined || !Array.isArray(b['alerts'])) return false;
  const key = b['groupKey'];
  return typeof key === 'string' || typeof key === 'number';
}

/** Grafana if the group has `orgId`, `version` "1", or an alert with Grafana-only keys. */
export function isGrafanaGroup(body: JsonObject): boolean {
  if (Object.hasOwn(body, 'orgId') || body['version'] === '1') return true;
  const alerts = arr(body['alerts']) ?? [];
  return alerts.slice(0, SCAN).some((a) => {
    const o = obj(a);
    return o !== undefined && GRAFANA_ALERT_KEYS.some((k) => Object.hasOwn(o, k));
  });
}

/** Read a group body; one signal per alert, each with its own status. */
export function normaliseGroup(
  source: GroupSource,
  body: unknown,
  ctx: NormaliseContext,
): NormaliseResult {
  const group = obj(body);
  if (group === undefined) throw new NotReadableError('body is not an object');
  const alerts = arr(group['alerts']);
  if (alerts === undefined) throw new NotReadableError('alerts is not an array');
  const signals = alerts.map((alert, i) => readAlert(source, group, alert, i, ctx));
  return { kind: 'signals', signals };
}

function readAlert(
  source: GroupSource,
  group: JsonObject,
  element: Json,
  i: number,
  ctx: NormaliseContext,
): Signal {
  const alert = obj(element);
  if (alert === undefined) throw new NotReadableError(`alerts[${String(i)}] is not an object`);
  const labels = obj(alert['labels']) ?? {};
  const annotations = obj(alert['annotations']) ?? {};
  const common = obj(group['commonLabels']) ?? {};

  const name = first(labels['alertname'], common['alertname']);
  if (name === undefined)
    throw new NotReadableError(`alerts[${String(i)}].labels.alertname is missing`);

  const state = first(alert['status'], group['status'])?.toLowerCase();
  if (state !== SignalStatus.Firing && state !== SignalStatus.Resolved) {
    throw new NotReadableError(`alerts[${String(i)}].status is not firing or resolved`);
  }
  const resolved = state === SignalStatus.Resolved;
  const id = str(alert['fingerprint']);

  return signal({
    source,
    name,
    status: state,
    severity: severity(first(labels['severity'], annotations['severity']), COMMON_SEVERITY),
    service:
      first(labels['service'], source === 'grafana' ? labels['grafana_folder'] : labels['job']) ??
      null,
    resource: first(labels['instance'], labels['host'], labels['pod'], labels['node']) ?? null,
    fingerprint: id !== undefined ? dedupKey(source, id) : labelSetHash(source, labels),
    started_at: time(alert['startsAt']) ?? ctx.receivedAt,
    ended_at: resolved ? (time(alert['endsAt']) ?? ctx.receivedAt) : null,
    summary:
      first(
        annotations['summary'],
        annotations['title'],
        annotations['description'],
        annotations['message'],
      ) ?? name,
    labels: labelsOf(source, group, alert, common, labels, annotations),
    link: resolveLink(alert['generatorURL'], group['externalURL']),
  });
}

/** Old Alertmanager (v3, pre-0.19) sends no fingerprint: hash the label set, sorted by key. */
function labelSetHash(source: GroupSource, labels: JsonObject): string {
  const pairs = Object.keys(labels)
    .sort()
    .flatMap((k) => {
      const v = str(labels[k]);
      return v === undefined ? [] : [`${k}=${v}`];
    });
  // One joined part: a spread of a huge label set would overflow the argument list.
  return hashOf(source, pairs.join('\u001f'));
}

function labelsOf(
  source: GroupSource,
  group: JsonObject,
  alert: JsonObject,
  common: JsonObject,
  labels: JsonObject,
  annotations: JsonObject,
): Record<string, string> {
  const out: Record<string, string> = {};
  putScalar(out, 'receiver', group['receiver']);
  putScalar(out, 'groupKey', group['groupKey']);
  if (source === 'grafana') {
    putScalar(out, 'orgId', first(alert['orgId'], group['orgId']));
    putScalar(out, 'appVersion', group['appVersion']);
    putScalar(out, 'valueString', alert['valueString']);
    for (const key of ['silenceURL', 'dashboardURL', 'panelURL']) putScalar(out, key, alert[key]);
    scalars(out, 'value.', alert['values']);
  }
  scalars(out, '', common);
  scalars(out, '', labels);
  scalars(out, 'annotation.', annotations);
  return out;
}

/** Copy the scalar values of an object (labels and annotations are strings by contract). */
function scalars(out: Record<string, string>, prefix: string, v: unknown): void {
  const o = obj(v);
  if (o === undefined) return;
  for (const [k, val] of Object.entries(o)) {
    if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean') {
      putScalar(out, prefix + k, val);
    }
  }
}

/**
 * The alert's `generatorURL`, resolved against `externalURL` when relative (Grafana 12 sends
 * "?orgId=1"), else `externalURL`; only absolute http(s) URLs.
 */
function resolveLink(generator: unknown, external: unknown): string | null {
  const base = absoluteLink(external);
  const direct = absoluteLink(generator);
  if (direct !== null || base === null) return direct ?? base;
  return absoluteLink(generator, base) ?? base;
}
