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
import { labelWriter } from './labels.js';
import { arr, at, first, obj, prefixedId, severity, signal, str, time } from './read.js';

const SOURCE = 'pingdom';

const IMPORTANCE: Readonly<Record<string, Severity>> = { high: 'high', low: 'warning' };
const STATES: Readonly<Record<string, SignalStatus>> = {
  DOWN: 'firing',
  FAILING: 'firing',
  UP: 'resolved',
  SUCCESSFUL: 'resolved',
};

/** Pingdom's tags are objects: labels read them by their `name`. */
const { put: putLabel } = labelWriter({ itemNames: true });

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
  const changed = time(b['state_changed_timestamp']) ?? time(b['state_changed_utc_time']);
  const when = changed ?? ctx.receivedAt;

  const labels: Record<string, string> = {};
  putLabel(labels, 'check_id', id);
  putLabel(labels, 'check_type', b['check_type']);
  putLabel(labels, 'current_state', upper);
  putLabel(labels, 'previous_state', b['previous_state']);
  putLabel(labels, 'importance_level', b['importance_level']);
  putLabel(labels, 'description', b['description']);
  putLabel(labels, 'custom_message', b['custom_message']);
  putLabel(labels, 'full_url', params?.['full_url']);
  putLabel(labels, 'tags', arr(b['tags']));
  putLabel(labels, 'first_probe', at(b, 'first_probe.location'));
  putLabel(labels, 'second_probe', at(b, 'second_probe.location'));

  const out = signal({
    source: SOURCE,
    name,
    status,
    severity: severity(b['importance_level'], IMPORTANCE),
    resource: first(params?.['hostname'], params?.['full_url'])?.slice(0, 500) ?? null,
    fingerprint: prefixedId(SOURCE, id),
    started_at: when,
    ended_at: status === 'resolved' ? when : null,
    summary: first(b['long_description'], b['description']) ?? `${name} is ${upper}`,
    labels,
  });
  return { kind: 'signals', signals: [out] };
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
