// Riemann: one event as JSON (`host`, `service`, `state`, `metric`, …) forwarded by a
// stream (NORMALISATION.md §2). State "ok" resolves; any other state fires.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
} from '../signal.js';
import { putLabel } from './labels.js';
import {
  COMMON_SEVERITY,
  first,
  hashOf,
  isObject,
  obj,
  severity,
  signal,
  str,
  time,
} from './read.js';

const SOURCE = 'riemann';
const STATE: Readonly<Record<string, Severity>> = { ...COMMON_SEVERITY, ok: 'info' };
/** Event fields read into the signal; every other top-level field is a custom attribute. */
const KNOWN = new Set(['host', 'service', 'state', 'description', 'time', 'time_micros']);

function detect(body: unknown): boolean {
  const b = obj(body);
  return (
    b !== undefined &&
    typeof b['host'] === 'string' &&
    typeof b['service'] === 'string' &&
    typeof b['state'] === 'string' &&
    (typeof b['metric'] === 'number' || typeof b['metric'] === 'string' || b['metric'] === null)
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const name = typeof b['service'] === 'string' ? str(b['service']) : undefined;
  if (name === undefined) throw new NotReadableError('service is missing');
  const state = typeof b['state'] === 'string' ? str(b['state'])?.toLowerCase() : undefined;
  if (state === undefined) throw new NotReadableError('state is missing');
  const host = typeof b['host'] === 'string' ? str(b['host']) : undefined;
  const resolved = state === 'ok';
  const when = time(b['time']) ?? time(b['time_micros']) ?? ctx.receivedAt;

  const labels: Record<string, string> = { state: state.slice(0, 1000) };
  for (const [k, v] of Object.entries(b)) {
    if (!KNOWN.has(k) && !isObject(v)) putLabel(labels, k.slice(0, 100), v);
  }

  const out = signal({
    source: SOURCE,
    name,
    status: resolved ? 'resolved' : 'firing',
    severity: severity(state, STATE),
    service: name.slice(0, 500),
    resource: host?.slice(0, 500) ?? null,
    fingerprint: hashOf(SOURCE, host, name),
    started_at: when,
    ended_at: resolved ? when : null,
    summary: first(b['description']) ?? `${name} is ${state}`,
    labels,
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
