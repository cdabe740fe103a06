// A last guard between normalisers and the ledger: a signal that breaks the shape is a
// 400 naming the alert and the field, never a malformed event.
import { InvalidInputError } from '../shared/errors.js';
import { Severity, SignalStatus, type Signal } from './signal.js';

const SEVERITIES = new Set<string>(Object.values(Severity));
const STATUSES = new Set<string>(Object.values(SignalStatus));
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function checkSignal(s: Signal, index: number, source: string): Signal {
  const bad = (field: string, why: string): never => {
    throw new InvalidInputError(
      'no_normaliser',
      `alert ${String(index)} of the ${source} body: ${field} ${why}`,
      {
        field: `body.alerts.${String(index)}.${field}`,
        tried: [source],
      },
    );
  };
  if (s.name.trim() === '') bad('name', 'is empty');
  if (s.fingerprint.trim() === '' || s.fingerprint.length > 512)
    bad('fingerprint', 'is empty or too long');
  if (!STATUSES.has(s.status)) bad('status', 'is not firing or resolved');
  if (!SEVERITIES.has(s.severity)) bad('severity', 'is not a known severity');
  if (!ISO.test(s.started_at)) bad('started_at', 'is not an ISO 8601 UTC time');
  if (s.ended_at !== null && !ISO.test(s.ended_at)) bad('ended_at', 'is not an ISO 8601 UTC time');
  return s;
}
