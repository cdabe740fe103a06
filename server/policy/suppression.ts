// Noise control, as pure functions of the policy and the signals: which maintenance window a
// signal falls in, which firing signal inhibits it, and which group it opens an incident in.
import { canonicalJson } from '../shared/canonical-json.js';
import { wildcardMatch } from '../shared/wildcard.js';
import type { InhibitRule, MaintenanceWindow, Policy } from './policy.schemas.js';

/** What the policy can see of a signal. */
export interface SignalFacts {
  readonly source: string;
  readonly name: string;
  readonly severity: string;
  readonly service: string;
  readonly resource: string | null;
  readonly labels: Readonly<Record<string, string>>;
}

/** A signal that is firing now, as a possible inhibition source. */
export type FiringSignal = SignalFacts & { readonly fingerprint: string };

export interface MaintenanceHit {
  readonly name: string;
  /** When the window ends, ISO 8601 UTC. */
  readonly ends: string;
  readonly reason: string | null;
}

export interface InhibitionHit {
  readonly rule: string;
  readonly by: { readonly source: string; readonly fingerprint: string; readonly name: string };
}

/**
 * The value of a key on a signal: `alertname` is the signal's name; `service`, `severity`,
 * `source` and `resource` are those fields; any other key is a label. Undefined when absent.
 */
export function keyValue(s: SignalFacts, key: string): string | undefined {
  switch (key) {
    case 'alertname':
      return s.name;
    case 'service':
      return s.service;
    case 'severity':
      return s.severity;
    case 'source':
      return s.source;
    case 'resource':
      return s.resource ?? undefined;
    default:
      // Own labels only: `constructor` is a valid label name, not Object's.
      return Object.hasOwn(s.labels, key) ? s.labels[key] : undefined;
  }
}

/** `*` matches any run (none included), case-sensitively: the one shared linear matcher. */
export { wildcardMatch };

/**
 * Whether every matcher holds: the key is present on the signal and its value matches (a
 * `*` value matches any value, but not an absent key). No matchers: true.
 */
export function matches(matchers: Readonly<Record<string, string>>, s: SignalFacts): boolean {
  for (const [key, pattern] of Object.entries(matchers)) {
    const value = keyValue(s, key);
    if (value === undefined || !wildcardMatch(pattern, value)) return false;
  }
  return true;
}

// Parsed once per window object; a new policy brings new objects.
const spans = new WeakMap<MaintenanceWindow, readonly [number, number]>();
function spanOf(w: MaintenanceWindow): readonly [number, number] {
  let span = spans.get(w);
  if (span === undefined) {
    span = [Date.parse(w.starts), Date.parse(w.ends)];
    spans.set(w, span);
  }
  return span;
}

/**
 * The maintenance window the signal falls in at `nowMs` (starts inclusive, ends exclusive):
 * one of its services matches the signal's service and its `match`, if any, holds. When
 * several do, the one that ends last (the first of those in the list on a tie).
 */
export function maintenanceFor(
  policy: Policy,
  s: SignalFacts,
  nowMs: number,
): MaintenanceHit | null {
  let best: MaintenanceWindow | null = null;
  let bestEnds = -Infinity;
  for (const w of policy.maintenance) {
    const [starts, ends] = spanOf(w);
    if (!(starts <= nowMs && nowMs < ends) || ends <= bestEnds) continue;
    if (!w.services.some((p) => wildcardMatch(p, s.service))) continue;
    if (w.match !== undefined && !matches(w.match, s)) continue;
    best = w;
    bestEnds = ends;
  }
  return best === null
    ? null
    : { name: best.name, ends: new Date(bestEnds).toISOString(), reason: best.reason ?? null };
}

function equalOn(rule: InhibitRule, a: SignalFacts, b: SignalFacts): boolean {
  return (rule.equal ?? []).every((key) => {
    const value = keyValue(a, key);
    return value !== undefined && value === keyValue(b, key);
  });
}

/**
 * The first rule (in list order) under which a firing signal inhibits `target`: the target
 * matches the rule's target matchers, the firing signal its source matchers, and every
 * `equal` key is present on both with the same value. A signal never inhibits itself (same
 * source and fingerprint, when the target carries a fingerprint). As in Alertmanager, a
 * target that matches both sides of a rule is not inhibited by signals that match both too,
 * so two such signals cannot silence each other.
 */
export function inhibitorFor(
  policy: Policy,
  target: SignalFacts & { readonly fingerprint?: string },
  firing: Iterable<FiringSignal>,
): InhibitionHit | null {
  let candidates: readonly FiringSignal[] | null = null;
  const own = typeof target.fingerprint === 'string' ? target.fingerprint : undefined;
  for (const rule of policy.inhibit) {
    if (!matches(rule.target, target)) continue;
    candidates ??= [...firing];
    const targetIsSource = matches(rule.source, target);
    for (const f of candidates) {
      if (own !== undefined && f.fingerprint === own && f.source === target.source) continue;
      if (!matches(rule.source, f)) continue;
      if (targetIsSource && matches(rule.target, f)) continue;
      if (!equalOn(rule, f, target)) continue;
      return {
        rule: rule.name,
        by: { source: f.source, fingerprint: f.fingerprint, name: f.name },
      };
    }
  }
  return null;
}

/**
 * The grouping key of a signal: canonical JSON of `[[key, value or null], …]` in the order
 * of `grouping.by`; null when `by` is empty (no grouping).
 */
export function groupKey(policy: Policy, s: SignalFacts): string | null {
  const { by } = policy.grouping;
  if (by.length === 0) return null;
  return canonicalJson(by.map((key) => [key, keyValue(s, key) ?? null]));
}
