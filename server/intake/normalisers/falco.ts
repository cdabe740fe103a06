// Falco: the JSON alert Falco's http_output posts, which falcosidekick's webhook output
// forwards with a per-event `uuid` (NORMALISATION.md §2). Falco has no resolve.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { labelWriter } from './labels.js';
import { at, first, hashOf, isObject, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'falco';

const PRIORITY: Readonly<Record<string, Severity>> = {
  emergency: 'critical',
  alert: 'critical',
  critical: 'critical',
  error: 'high',
  warning: 'warning',
  notice: 'info',
  informational: 'info',
  info: 'info',
  debug: 'info',
};

/** Nanosecond times and other integers past 2^53 lost digits in JSON.parse: not shown. */
const { put: putLabel } = labelWriter({ exactIntegers: true });

function detect(body: unknown): boolean {
  const b = obj(body);
  return (
    b !== undefined &&
    typeof b['rule'] === 'string' &&
    typeof b['priority'] === 'string' &&
    typeof b['output'] === 'string'
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const name = str(b['rule']);
  if (typeof b['rule'] !== 'string' || name === undefined) {
    throw new NotReadableError('rule is missing');
  }
  if (typeof b['priority'] !== 'string') throw new NotReadableError('priority is missing');
  const fields = obj(b['output_fields']) ?? {};
  // Falco writes "<NA>" (or null) for fields that do not apply to the event.
  const field = (key: string): string | undefined => {
    const v = str(at(fields, [key]));
    return v === '<NA>' ? undefined : v;
  };
  const hostname = str(b['hostname']);
  const container = field('container.id');
  const pod = field('k8s.pod.name');

  const labels: Record<string, string> = {};
  putLabel(labels, 'priority', b['priority']);
  putLabel(labels, 'source', b['source']);
  putLabel(labels, 'hostname', hostname);
  putLabel(labels, 'tags', b['tags']);
  putLabel(labels, 'uuid', b['uuid']);
  for (const [k, v] of Object.entries(fields)) {
    if (!isObject(v) && v !== '<NA>') putLabel(labels, k, v);
  }

  const signalOut = signal({
    source: SOURCE,
    name,
    status: 'firing',
    severity: severity(b['priority'], PRIORITY),
    service: field('k8s.ns.name')?.slice(0, 500) ?? null,
    resource: first(hostname, container)?.slice(0, 500) ?? null,
    fingerprint: hashOf(SOURCE, name, hostname, container ?? pod),
    started_at: time(b['time']) ?? time(at(fields, ['evt.time'])) ?? ctx.receivedAt,
    summary: str(b['output']) ?? name,
    labels,
  });
  return { kind: 'signals', signals: [signalOut] };
}

export const normaliser: Normaliser = {
  source: SOURCE,
  aliases: ['falcosidekick'],
  detect,
  normalise,
};
