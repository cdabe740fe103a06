// Pingdom: the state-change webhook (NORMALISATION.md §2). DOWN (FAILING for transaction
// checks) fires, UP (SUCCESSFUL) resolves; any other state is acknowledged as control.
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type SignalStatus,
} from '../signal.js';
import { arr, at, first, hashOf, isObject, obj, severity, signal, str, time } from './read.js';

const SOURCE = 'pingdom';
const MAX_LABELS = 200;

const IMPORTANCE: Readonly<Record<string, Severity>> = { high: 'high', low: 'warning' };
const STATES: Readonly<Record<string, SignalStatus>> = {
  DOWN: 'firing',
  FAILING: 'firing',
  UP: 'resolved',
  SUCCESSFUL: 'resolved',
};

/** Label text: primitives as text, arrays of primitives joined with commas, nested values skipped. */
function text(v: unknown): string | undefined {
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    const parts = v
      .slice(0, 100)
      .map((x) => str(isObject(x) ? x['name'] : x))
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

/** `state_changed_utc_time` has no zone; it is UTC, as its name says. */
function utc(v: unknown): string | undefined {
  const s = str(v);
  if (s !== undefined && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(s)) {
    return time(`${s.replace(' ', 'T')}Z`);
  }
  return time(v);
}

/** A short id (a check number) is namespaced by source so it cannot meet another source's id. */
function fingerprintOf(id: string): string {
  return id.length <= 200 ? `${SOURCE}:${id}` : hashOf(SOURCE, id);
}

function detect(body: unknown): boolean {
  const b = obj(body);
  return (
    b !== undefined &&
    str(b['check_id']) !== undefined &&
    typeof b['current_state'] === 'string' &&
    typeof b['check_name'] === 'string'
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('body is not a JSON object');
  const id = str(b['check_id']);
  if (id === undefined) throw new NotReadableError('check_id is missing');
  const state = typeof b['current_state'] === 'string' ? str(b['current_state']) : undefined;
  if (state === undefined) throw new NotReadableError('current_state is missing');
  const name = typeof b['check_name'] === 'string' ? str(b['check_name']) : undefined;
  if (name === undefined) throw new NotReadableError('check_name is missing');
  const upper = state.toUpperCase();
  const status = Object.hasOwn(STATES, upper) ? STATES[upper] : undefined;
  if (status === undefined) {
    return { kind: 'control', reason: `pingdom state ${upper.slice(0, 40)} is not a transition` };
  }
  const params = obj(b['check_params']);
  const changed = time(b['state_changed_timestamp']) ?? utc(b['state_changed_utc_time']);
  const when = changed ?? ctx.receivedAt;

  const labels: Record<string, string> = {};
  put(labels, 'check_id', id);
  put(labels, 'check_type', b['check_type']);
  put(labels, 'current_state', upper);
  put(labels, 'previous_state', b['previous_state']);
  put(labels, 'importance_level', b['importance_level']);
  put(labels, 'description', b['description']);
  put(labels, 'custom_message', b['custom_message']);
  put(labels, 'full_url', params?.['full_url']);
  put(labels, 'tags', arr(b['tags']));
  put(labels, 'first_probe', at(b, 'first_probe.location'));
  put(labels, 'second_probe', at(b, 'second_probe.location'));

  const out = signal({
    source: SOURCE,
    name,
    status,
    severity: severity(b['importance_level'], IMPORTANCE),
    resource: first(params?.['hostname'], params?.['full_url'])?.slice(0, 500) ?? null,
    fingerprint: fingerprintOf(id),
    started_at: when,
    ended_at: status === 'resolved' ? when : null,
    summary: first(b['long_description'], b['description']) ?? `${name} is ${upper}`,
    labels,
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
