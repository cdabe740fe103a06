// Sentry Integration Platform webhooks (header Sentry-Hook-Resource): `issue`, `event_alert`
// (issue alert rule fired) and `metric_alert`; `installation` and other resources are control
// messages. NORMALISATION.md §2 (sentry).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type Signal,
} from '../signal.js';
import { httpLink, putScalar } from './labels.js';
import {
  arr,
  at,
  first,
  idFingerprint,
  isObject,
  type JsonObject,
  obj,
  severity,
  signal,
  str,
  time,
} from './read.js';

const SOURCE = 'sentry';

/** Event / issue `level`. */
const LEVEL: Readonly<Record<string, Severity>> = {
  fatal: 'critical',
  error: 'high',
  warning: 'warning',
  info: 'info',
  debug: 'info',
};

/** Metric alert `action` (the trigger that fired). */
const METRIC_ACTION: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  warning: 'warning',
};

const RESOURCES = new Set(['issue', 'event_alert', 'metric_alert', 'installation']);

function detect(body: unknown, ctx: NormaliseContext): boolean {
  if (!isObject(body)) return false;
  const hook = str(ctx.headers['sentry-hook-resource']);
  if (hook !== undefined) return typeof body['action'] === 'string';
  return (
    typeof body['action'] === 'string' &&
    isObject(body['data']) &&
    str(at(body, 'installation.uuid')) !== undefined
  );
}

/** The resource from the header, else from the shape of `data`. */
function resourceOf(data: JsonObject, ctx: NormaliseContext): string | undefined {
  const hook = str(ctx.headers['sentry-hook-resource'])?.toLowerCase();
  if (hook !== undefined) return hook.slice(0, 64);
  if (isObject(data['metric_alert'])) return 'metric_alert';
  if (str(data['triggered_rule']) !== undefined || isObject(data['issue_alert']))
    return 'event_alert';
  if (isObject(data['issue'])) return 'issue';
  if (isObject(data['installation'])) return 'installation';
  return undefined;
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const root = obj(body);
  if (root === undefined) throw new NotReadableError('a Sentry webhook body is a JSON object');
  const action = str(root['action'])?.toLowerCase().slice(0, 64);
  const data = obj(root['data']);
  if (action === undefined) throw new NotReadableError('action is missing');
  if (data === undefined) throw new NotReadableError('data is not an object');
  const resource = resourceOf(data, ctx);
  if (resource === undefined)
    throw new NotReadableError('data holds no issue, event or metric_alert');
  if (!RESOURCES.has(resource)) {
    return { kind: 'control', reason: `sentry ${resource} webhook is not an alert` };
  }
  if (resource === 'installation') {
    return { kind: 'control', reason: `sentry installation ${action}` };
  }
  if (resource === 'issue') return issue(root, data, action, ctx);
  if (resource === 'event_alert') return eventAlert(data, action, ctx);
  return metricAlert(data, action, ctx);
}

function issue(
  root: JsonObject,
  data: JsonObject,
  action: string,
  ctx: NormaliseContext,
): NormaliseResult {
  const it = obj(data['issue']);
  if (it === undefined) throw new NotReadableError('data.issue is not an object');
  const status =
    action === 'created' || action === 'unresolved'
      ? 'firing'
      : action === 'resolved'
        ? 'resolved'
        : undefined;
  if (status === undefined) {
    return { kind: 'control', reason: `sentry issue ${action} is an update, not a state change` };
  }
  const title = first(it['title'], it['shortId']);
  const id = first(it['id']);
  if (title === undefined) throw new NotReadableError('data.issue.title is missing');
  if (id === undefined) throw new NotReadableError('data.issue.id is missing');
  const labels: Record<string, string> = {};
  putScalar(labels, 'short_id', it['shortId']);
  putScalar(labels, 'culprit', it['culprit']);
  putScalar(labels, 'level', it['level']);
  putScalar(labels, 'platform', it['platform']);
  putScalar(labels, 'issue_status', it['status']);
  putScalar(labels, 'substatus', it['substatus']);
  putScalar(labels, 'project_name', at(it, 'project.name'));
  putScalar(labels, 'resolution_type', data['resolution_type']);
  putScalar(labels, 'actor', at(root, 'actor.name'));
  putScalar(labels, 'action', action);
  return one(
    signal({
      source: SOURCE,
      name: title,
      status,
      severity: severity(it['level'], LEVEL),
      service: first(at(it, 'project.slug'), at(it, 'project.name')) ?? null,
      fingerprint: idFingerprint(SOURCE, id),
      started_at: time(it['firstSeen']) ?? ctx.receivedAt,
      ended_at: status === 'resolved' ? ctx.receivedAt : null,
      summary: title,
      labels,
      link: httpLink(it['web_url'], it['permalink'], data['web_url']),
    }),
  );
}

function eventAlert(data: JsonObject, action: string, ctx: NormaliseContext): NormaliseResult {
  if (action !== 'triggered') {
    return { kind: 'control', reason: `sentry event_alert ${action} is not a trigger` };
  }
  const event = obj(data['event']);
  if (event === undefined) throw new NotReadableError('data.event is not an object');
  const rule = first(data['triggered_rule'], at(data, 'issue_alert.title'));
  if (rule === undefined) throw new NotReadableError('data.triggered_rule is missing');
  const tags = tagsOf(event['tags']);
  const issueId = first(event['issue_id'], at(data, 'issue.id'));
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) putScalar(labels, `tag.${k}`, v);
  putScalar(labels, 'rule', rule);
  putScalar(labels, 'event_id', event['event_id']);
  putScalar(labels, 'culprit', event['culprit']);
  putScalar(labels, 'level', event['level']);
  putScalar(labels, 'platform', event['platform']);
  putScalar(labels, 'environment', first(event['environment'], tags['environment']));
  putScalar(labels, 'release', event['release']);
  putScalar(labels, 'issue_id', issueId);
  const name = rule;
  return one(
    signal({
      source: SOURCE,
      name,
      status: 'firing',
      severity: severity(first(event['level'], tags['level']), LEVEL),
      service: projectSlug(event) ?? null,
      resource: tags['server_name'] ?? null,
      // The issue id, so that the issue's own `resolved` webhook closes this alert.
      fingerprint: idFingerprint(SOURCE, issueId ?? `event:${first(event['event_id']) ?? name}`),
      started_at:
        time(event['datetime']) ??
        time(event['timestamp']) ??
        time(event['received']) ??
        ctx.receivedAt,
      summary: first(event['title'], event['message'], rule) ?? rule,
      labels,
      link: httpLink(event['web_url'], data['web_url']),
    }),
  );
}

function metricAlert(data: JsonObject, action: string, ctx: NormaliseContext): NormaliseResult {
  const alert = obj(data['metric_alert']);
  if (alert === undefined) throw new NotReadableError('data.metric_alert is not an object');
  const status =
    action === 'critical' || action === 'warning'
      ? 'firing'
      : action === 'resolved'
        ? 'resolved'
        : undefined;
  if (status === undefined) {
    return { kind: 'control', reason: `sentry metric_alert ${action} is not a state change` };
  }
  const rule = obj(alert['alert_rule']);
  const name = first(rule?.['name'], alert['title']);
  const id = first(alert['id'], alert['identifier']);
  if (name === undefined)
    throw new NotReadableError('data.metric_alert.alert_rule.name is missing');
  if (id === undefined) throw new NotReadableError('data.metric_alert.id is missing');
  const labels: Record<string, string> = {};
  putScalar(labels, 'description', data['description_text']);
  putScalar(labels, 'aggregate', rule?.['aggregate']);
  putScalar(labels, 'query', rule?.['query']);
  putScalar(labels, 'dataset', rule?.['dataset']);
  putScalar(labels, 'time_window', rule?.['time_window']);
  putScalar(labels, 'environment', rule?.['environment']);
  putScalar(labels, 'alert_rule_id', rule?.['id']);
  putScalar(labels, 'identifier', alert['identifier']);
  putScalar(labels, 'incident_title', alert['title']);
  putScalar(labels, 'action', action);
  return one(
    signal({
      source: SOURCE,
      name,
      status,
      // A resolve does not say which trigger had fired.
      severity: severity(action, METRIC_ACTION),
      service: first(...(arr(alert['projects']) ?? []), ...(arr(rule?.['projects']) ?? [])) ?? null,
      // Prefixed: metric alert incident ids and issue ids are separate sequences.
      fingerprint: idFingerprint(SOURCE, `metric_alert:${id}`),
      started_at:
        time(alert['date_started']) ??
        time(alert['date_detected']) ??
        time(alert['date_created']) ??
        ctx.receivedAt,
      ended_at: status === 'resolved' ? (time(alert['date_closed']) ?? ctx.receivedAt) : null,
      summary: first(data['description_title'], data['description_text'], name) ?? name,
      labels,
      link: httpLink(data['web_url']),
    }),
  );
}

function one(s: Signal): NormaliseResult {
  return { kind: 'signals', signals: [s] };
}

/** Event tags: a list of [key, value] pairs, or of {key, value} objects. */
function tagsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of (arr(v) ?? []).slice(0, 200)) {
    const k = first(at(t, '0'), at(t, 'key'));
    const val = first(at(t, '1'), at(t, 'value'));
    if (k !== undefined && val !== undefined) out[k] = val;
  }
  return out;
}

/** The project slug from the event's API url (…/projects/<org>/<slug>/events/…), else its id. */
function projectSlug(event: JsonObject): string | undefined {
  const m = /\/projects\/[^/]+\/([^/]+)\/events\//.exec(str(event['url']) ?? '');
  return m?.[1] ?? first(event['project']);
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
