// Panther (SIEM) custom webhook destination: one alert per body, with the rule id (`id`), the
// rule name, the rendered title, severity, type (RULE, POLICY, SCHEDULED_RULE, …), alertId,
// createdAt, link, tags and alertContext. Panther sends no resolve.
// NORMALISATION.md §2 (panther).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { httpLink, listText, putScalar, putScalarOrList } from './labels.js';
import { first, idFingerprint, isObject, obj, severity, signal, time } from './read.js';

const SOURCE = 'panther';

const SEVERITY: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  high: 'high',
  medium: 'warning',
  low: 'info',
  info: 'info',
};

/** Detection types (and their error variants). */
const TYPES = new Set([
  'RULE',
  'RULE_ERROR',
  'POLICY',
  'SCHEDULED_RULE',
  'SCHEDULED_RULE_ERROR',
  'CORRELATION_RULE',
  'CORRELATION_RULE_ERROR',
  'SIGNAL',
]);

/** alertContext keys that name the affected resource, in order of preference. */
const RESOURCE_KEYS = [
  'resource',
  'resourceId',
  'host',
  'hostname',
  'instance',
  'instanceId',
  'ip',
];

function detect(body: unknown): boolean {
  return (
    isObject(body) &&
    typeof body['alertId'] === 'string' &&
    typeof body['type'] === 'string' &&
    TYPES.has(body['type'].toUpperCase()) &&
    typeof body['severity'] === 'string'
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('a Panther alert is a JSON object');
  const alertId = first(b['alertId']);
  const name = first(b['name'], b['id'], b['title']);
  if (alertId === undefined) throw new NotReadableError('alertId is missing');
  if (name === undefined) throw new NotReadableError('name is missing');
  const context = obj(b['alertContext']) ?? {};
  const labels: Record<string, string> = {};
  putScalar(labels, 'rule_id', b['id']);
  putScalar(labels, 'type', b['type']);
  putScalar(labels, 'severity', b['severity']);
  putScalar(labels, 'description', b['description']);
  putScalar(labels, 'runbook', b['runbook']);
  putScalar(labels, 'rule_version', b['version']);
  putScalar(labels, 'tags', listText(b['tags']));
  for (const [k, v] of Object.entries(context).slice(0, 100)) {
    putScalarOrList(labels, `context.${k}`, v);
  }
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status: 'firing',
        severity: severity(b['severity'], SEVERITY),
        // Tags are detection categories, not services.
        service: null,
        resource: first(...RESOURCE_KEYS.map((k) => context[k])) ?? null,
        fingerprint: idFingerprint(SOURCE, alertId),
        started_at: time(b['createdAt']) ?? ctx.receivedAt,
        summary: first(b['title'], b['description'], name) ?? name,
        labels,
        link: httpLink(b['link']),
      }),
    ],
  };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
