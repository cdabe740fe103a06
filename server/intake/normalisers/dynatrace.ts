// Dynatrace problem notification ("Custom integration" webhook with the classic template:
// State, ProblemID, PID, ProblemTitle, ImpactedEntity, ImpactedEntities, Tags, ProblemURL…).
// A test run sends literal placeholders such as "{PID}": those count as missing.
// NORMALISATION.md §2 (dynatrace).
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Severity,
  type SignalStatus,
} from '../signal.js';
import { httpLink, labelSetter } from './labels.js';
import {
  arr,
  idFingerprint,
  isObject,
  type Json,
  obj,
  PLACEHOLDER,
  severity,
  signal,
  str,
  time,
} from './read.js';

const SOURCE = 'dynatrace';

/** `ProblemSeverity` (the problem's severity level). */
const PROBLEM_SEVERITY: Readonly<Record<string, Severity>> = {
  availability: 'high',
  error: 'high',
  performance: 'warning',
  resource_contention: 'warning',
  resource: 'warning',
  custom_alert: 'warning',
  info: 'info',
};

const STATE: Readonly<Record<string, SignalStatus>> = {
  open: 'firing',
  resolved: 'resolved',
  merged: 'resolved',
  closed: 'resolved',
};

/** A non-empty string that is not an unresolved template placeholder. */
function val(v: unknown): string | undefined {
  const s = str(v);
  return s === undefined || PLACEHOLDER.test(s) ? undefined : s;
}

function first(...values: unknown[]): string | undefined {
  for (const v of values) {
    const s = val(v);
    if (s !== undefined) return s;
  }
  return undefined;
}

/** Labels skip placeholders too. */
const putFilled = labelSetter(val);

function detect(body: unknown): boolean {
  return (
    isObject(body) &&
    (typeof body['ProblemID'] === 'string' || typeof body['ProblemID'] === 'number') &&
    typeof body['State'] === 'string'
  );
}

function normalise(body: unknown, ctx: NormaliseContext): NormaliseResult {
  const b = obj(body);
  if (b === undefined) throw new NotReadableError('a Dynatrace notification body is a JSON object');
  const state = val(b['State'])?.toLowerCase();
  if (state === undefined) throw new NotReadableError('State is missing');
  const status = Object.hasOwn(STATE, state) ? STATE[state] : undefined;
  if (status === undefined) {
    return {
      kind: 'control',
      reason: `dynatrace problem state ${state.slice(0, 64)} is not a state change`,
    };
  }
  const details = detailsOf(b['ProblemDetailsJSON']);
  const id = first(b['PID'], b['ProblemID'], details?.['id'], details?.['problemId']);
  if (id === undefined) throw new NotReadableError('PID and ProblemID are missing');
  const name = first(b['ProblemTitle'], details?.['title']);
  if (name === undefined) throw new NotReadableError('ProblemTitle is missing');
  const entities = (arr(b['ImpactedEntities']) ?? []).slice(0, 200).filter(isObject);
  const ofType = (type: string): string | undefined =>
    first(...entities.filter((e) => val(e['type'])?.toUpperCase() === type).map((e) => e['name']));
  const labels: Record<string, string> = {};
  putFilled(labels, 'problem_id', b['ProblemID']);
  putFilled(labels, 'pid', b['PID']);
  putFilled(labels, 'state', b['State']);
  putFilled(labels, 'problem_severity', b['ProblemSeverity']);
  putFilled(labels, 'problem_impact', b['ProblemImpact']);
  putFilled(labels, 'impacted_entity', b['ImpactedEntity']);
  putFilled(labels, 'impacted_entity_names', b['ImpactedEntityNames']);
  for (const e of entities.slice(0, 50)) {
    const type = val(e['type'])?.toLowerCase();
    const entity = first(e['entity'], e['name']);
    if (type === undefined || entity === undefined) continue;
    const label = `entity.${type}`;
    putFilled(labels, label, labels[label] === undefined ? entity : `${labels[label]}, ${entity}`);
  }
  const tags = val(b['Tags']);
  if (tags !== undefined) {
    putFilled(labels, 'tags', tags);
    for (const tag of tags.split(',').slice(0, 100)) {
      const i = tag.indexOf(':');
      if (i > 0) putFilled(labels, `tag.${tag.slice(0, i).trim()}`, tag.slice(i + 1));
    }
  }
  return {
    kind: 'signals',
    signals: [
      signal({
        source: SOURCE,
        name,
        status,
        severity: severity(
          first(b['ProblemSeverity'], details?.['severityLevel']),
          PROBLEM_SEVERITY,
        ),
        service: ofType('SERVICE') ?? null,
        resource: first(b['ImpactedEntity'], ofType('HOST')) ?? null,
        fingerprint: idFingerprint(SOURCE, id),
        started_at: time(details?.['startTime']) ?? ctx.receivedAt,
        ended_at: status === 'resolved' ? (time(details?.['endTime']) ?? ctx.receivedAt) : null,
        summary: first(b['ProblemDetailsText'], b['ProblemDetails'], name) ?? name,
        labels,
        link: httpLink(b['ProblemURL']),
      }),
    ],
  };
}

/** `{ProblemDetailsJSON}` is inserted as an object, or as a string when the template quotes it. */
function detailsOf(v: unknown): { [key: string]: Json } | undefined {
  if (isObject(v)) return v;
  const s = typeof v === 'string' && v.length <= 1_000_000 ? v.trim() : '';
  if (!s.startsWith('{')) return undefined;
  try {
    return obj(JSON.parse(s));
  } catch {
    return undefined;
  }
}

export const normaliser: Normaliser = { source: SOURCE, detect, normalise };
