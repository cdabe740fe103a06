// Falco: the JSON alert Falco's http_output posts, which falcosidekick's webhook output
// forwards with a per-event `uuid` (NORMALISATION.md §2). Falco has no resolve.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { at, first, hashOf, isObject, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'falco';
const MAX_LABELS = 200;

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
  put(labels, 'priority', b['priority']);
  put(labels, 'source', b['source']);
  put(labels, 'hostname', hostname);
  put(labels, 'tags', b['tags']);
  put(labels, 'uuid', b['uuid']);
  for (const [k, v] of Object.entries(fields)) {
    if (!isObject(v) && v !== '<NA>') put(labels, k, v);
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
