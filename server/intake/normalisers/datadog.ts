// Datadog webhook: the default payload ($EVENT_TITLE, $DATE, $ORG_ID, …) or a custom one
// with $ALERT_ID, $ALERT_TRANSITION, $ALERT_TYPE, $ALERT_PRIORITY, $HOSTNAME. The status
// comes from the transition, else the title prefix ("[Triggered]", "[Recovered on {…}]"),
// else the alert type. The event `id` changes with every notification, so the fingerprint is
// the monitor id (custom `alert_id`, or the `monitors#<id>` link in the default body) plus
// the alert's scope.
import { Severity, SignalStatus, NotReadableError, type Normaliser } from '../signal.js';
import { absoluteLink, putString } from './labels.js';
import {
  COMMON_SEVERITY,
  first,
  hashOf,
  obj,
  severity,
  signal,
  str,
  time,
  type JsonObject,
} from './read.js';

const SOURCE = 'datadog';

/** One leading "[…]" marker of a title: a transition (with its scope) or a priority. */
const PREFIX =
  /^\[(P[1-5]|(?:Re-)?Triggered|Recovered|(?:Re-)?Warn(?:ing)?|(?:Re-)?No Data)(?: on \{([^}]{0,500})\})?\]\s*/i;

const ALERT_TYPE: Readonly<Record<string, Severity>> = {
  error: 'high',
  warning: 'warning',
  info: 'info',
};

export const normaliser: Normaliser = {
  source: SOURCE,
  detect(body) {
    const b = obj(body);
    return (
      b !== undefined &&
      typeof b['event_type'] === 'string' &&
      (obj(b['org']) !== undefined || str(b['org_id']) !== undefined) &&
      (str(b['last_updated']) !== undefined || str(b['date']) !== undefined) &&
      !Object.hasOwn(b, 'src_ip')
    );
  },
  normalise(body, ctx) {
    const b = obj(body);
    if (b === undefined) throw new NotReadableError('body is not an object');
    const rawTitle = first(b['alert_title'], b['title']);
    if (rawTitle === undefined) throw new NotReadableError('title is missing');
    const title = parseTitle(rawTitle);
    const name = title.name === '' ? rawTitle : title.name;
    // The title's own prefixes (not alert_title's) carry the transition in the default body.
    const markers = parseTitle(str(b['title']) ?? '');
    const transition = first(b['alert_transition'], markers.transition, title.transition);
    const status = statusOf(transition, str(b['alert_type']));
    const tags = tagsOf(b['tags']);
    // Bodies are short; a hostile megabyte is not scanned whole by the regular expressions.
    const text = str(b['body'])?.slice(0, 20_000);
    const monitor = first(b['alert_id'], text?.match(/monitors[#/](\d{1,20})/)?.[1]);
    const scope = first(b['alert_scope'], markers.scope, title.scope, b['hostname'], tags['host']);
    const date = time(b['date']) ?? time(b['last_updated']);
    const resolved = status === SignalStatus.Resolved;
    return {
      kind: 'signals',
      signals: [
        signal({
          source: SOURCE,
          name,
          status,
          severity: severityOf(b, transition, markers.priority ?? title.priority),
          service: first(tags['service'], b['service']) ?? null,
          resource:
            first(
              b['hostname'],
              b['host'],
              tags['host'],
              scope?.match(/(?:^|,)\s*host:([^,\s]+)/)?.[1],
            ) ?? null,
          fingerprint:
            monitor !== undefined
              ? hashOf(SOURCE, 'monitor', monitor, scope)
              : hashOf(SOURCE, 'title', name, scope),
          started_at: date ?? ctx.receivedAt,
          ended_at: resolved ? (date ?? ctx.receivedAt) : null,
          summary: first(b['alert_status'], b['message'], stripMarkdown(text)) ?? name,
          labels: labelsOf(b, tags, monitor, transition),
          link: absoluteLink(b['event_url']) ?? absoluteLink(b['link']) ?? monitorLink(text),
        }),
      ],
    };
  },
};

interface Title {
  readonly name: string;
  readonly transition: string | undefined;
  readonly scope: string | undefined;
  readonly priority: string | undefined;
}

/** Strip the leading "[P1] [Triggered on {host:a}]" markers; keep what they say. */
function parseTitle(title: string): Title {
  let rest = title.trim();
  let transition: string | undefined;
  let scope: string | undefined;
  let priority: string | undefined;
  for (let i = 0; i < 4; i++) {
    const m = PREFIX.exec(rest);
    if (m === null) break;
    const marker = m[1] ?? '';
    if (/^P[1-5]$/i.test(marker)) priority = marker;
    else {
      transition = marker;
      scope = m[2];
    }
    rest = rest.slice(m[0].length);
  }
  return { name: rest.trim(), transition, scope: str(scope), priority };
}

function statusOf(transition: string | undefined, alertType: string | undefined): SignalStatus {
  if (transition !== undefined) return /recover/i.test(transition) ? 'resolved' : 'firing';
  return alertType?.toLowerCase() === 'success' ? 'resolved' : 'firing';
}

function severityOf(
  b: JsonObject,
  transition: string | undefined,
  titlePriority: string | undefined,
): Severity {
  if (transition !== undefined && /no ?data/i.test(transition)) return Severity.Info;
  const priority = severity(first(b['alert_priority'], titlePriority), COMMON_SEVERITY);
  if (priority !== Severity.Unknown) return priority;
  const type = severity(b['alert_type'], ALERT_TYPE);
  if (type !== Severity.Unknown) return type;
  if (transition !== undefined && /warn/i.test(transition)) return Severity.Warning;
  return Severity.Unknown;
}

/** "host:a,env:prod,monitor" → {host: "a", env: "prod", monitor: ""}. */
function tagsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const s = str(v);
  if (s === undefined) return out;
  for (const tag of s.split(',').slice(0, 200)) {
    const t = tag.trim();
    if (t === '') continue;
    const colon = t.indexOf(':');
    const key = colon < 0 ? t : t.slice(0, colon);
    if (key !== '' && !Object.hasOwn(out, key)) out[key] = colon < 0 ? '' : t.slice(colon + 1);
  }
  return out;
}

function labelsOf(
  b: JsonObject,
  tags: Record<string, string>,
  monitor: string | undefined,
  transition: string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) out[k.slice(0, 200)] = v.slice(0, 1000);
  putString(out, 'monitor_id', monitor);
  putString(out, 'transition', transition);
  for (const key of [
    'alert_type',
    'alert_priority',
    'alert_metric',
    'alert_scope',
    'alert_query',
    'event_type',
    'priority',
    'org_id',
    'org_name',
    'tags',
  ]) {
    putString(out, key, b[key]);
  }
  putString(out, 'event_id', b['id']);
  const org = obj(b['org']);
  putString(out, 'org_id', first(b['org_id'], org?.['id']));
  putString(out, 'org_name', first(b['org_name'], org?.['name']));
  return out;
}

/** The markdown body without Datadog's %%% fences, on one line. */
function stripMarkdown(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return str(text.replaceAll('%%%', ' ').replace(/\s+/g, ' '));
}

/** The monitor link in a default body: "[[Monitor Status](https://…/monitors#123?)]". */
function monitorLink(text: string | undefined): string | null {
  const url = text?.match(/https?:\/\/[^\s)\]]{1,500}\/monitors[#/]\d{1,20}/)?.[0];
  return absoluteLink(url);
}
