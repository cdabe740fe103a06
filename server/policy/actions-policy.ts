// Acting safely, as pure functions of the policy: whether a change window forbids actions on
// a service now, and whether the policy allows a fix on a service (and lists it as safe to
// run without asking on L2). The decision table and the executor both ask these, the
// executor again at the moment it runs.
import {
  RISKS,
  WEEKDAYS,
  type ActionRule,
  type ChangeWindow,
  type Policy,
  type WeeklyWindow,
} from './policy.schemas.js';
import { wildcardMatch } from './suppression.js';

type Risk = (typeof RISKS)[number];

export interface ChangeWindowHit {
  /** the window that forbids it: a freeze window, or the `only` window that opens next */
  readonly name: string;
  /** when actions are allowed again (ISO 8601 UTC) */
  readonly until: string;
}

export interface FixPermission {
  readonly allowed: boolean;
  /** allowed and listed safe: on L2 it runs without asking */
  readonly safe: boolean;
  /** one line a person reads */
  readonly why: string;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** The default when `actions.rules` is empty: every fix up to this risk, none safe. */
export const DEFAULT_MAX_RISK: Risk = 'medium';

const names = (services: readonly string[], service: string): boolean =>
  services.some((p) => wildcardMatch(p, service));

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** Each opening of a weekly window as [start, end) in ms, for the days around `nowMs`. */
function weeklySpans(w: WeeklyWindow, fromMs: number, days: number): [number, number][] {
  const from = minutesOf(w.from);
  const to = minutesOf(w.to);
  // At or before `from`: it ends the next day (equal: 24 hours).
  const length = ((to - from + 1440 - 1) % 1440) + 1;
  const spans: [number, number][] = [];
  const midnight = Math.floor(fromMs / DAY_MS) * DAY_MS;
  for (let d = 0; d < days; d += 1) {
    const dayStart = midnight + d * DAY_MS;
    // 1970-01-01 was a Thursday; WEEKDAYS starts on Monday.
    const weekday = WEEKDAYS[(Math.floor(dayStart / DAY_MS) + 3) % 7];
    if (weekday === undefined || !w.days.includes(weekday)) continue;
    const start = dayStart + from * MINUTE_MS;
    spans.push([start, start + length * MINUTE_MS]);
  }
  return spans;
}

/** The opening of the window that holds `nowMs` (weekly openings that touch are joined). */
function openAt(w: ChangeWindow, nowMs: number): number | null {
  if (w.weekly === undefined) {
    const starts = Date.parse(w.starts ?? '');
    const ends = Date.parse(w.ends ?? '');
    return starts <= nowMs && nowMs < ends ? ends : null;
  }
  // From yesterday (an overnight opening) over the next week and a day.
  const spans = weeklySpans(w.weekly, nowMs - DAY_MS, 9);
  let end: number | null = null;
  for (const [s, e] of spans) {
    if (end === null) {
      if (s <= nowMs && nowMs < e) end = e;
    } else if (s <= end) {
      end = Math.max(end, e);
    }
  }
  return end;
}

/** The next time the window opens after `nowMs`, or null when it never opens again. */
function nextOpening(w: ChangeWindow, nowMs: number): number | null {
  if (w.weekly === undefined) {
    const starts = Date.parse(w.starts ?? '');
    return starts > nowMs ? starts : null;
  }
  const next = weeklySpans(w.weekly, nowMs, 9).find(([s]) => s > nowMs);
  return next === undefined ? null : next[0];
}

/**
 * Whether a change window forbids actions on `service` at `nowIso`: inside a `freeze` window
 * naming it (the one that ends last, when several hold), or outside every `only` window
 * naming it while at least one of them is still to come or open (the one opening next).
 * Null: actions are allowed now. Windows whose time has passed do no harm.
 */
export function changeWindowNow(
  policy: Pick<Policy, 'change_windows'>,
  service: string,
  nowIso: string,
): ChangeWindowHit | null {
  const now = Date.parse(nowIso);
  let freeze: { name: string; until: number } | null = null;
  let insideOnly = false;
  let nextOnly: { name: string; until: number } | null = null;
  for (const w of policy.change_windows) {
    if (!names(w.services, service)) continue;
    const end = openAt(w, now);
    if (w.mode === 'freeze') {
      if (end !== null && (freeze === null || end > freeze.until))
        freeze = { name: w.name, until: end };
      continue;
    }
    if (end !== null) {
      insideOnly = true;
      continue;
    }
    const opens = nextOpening(w, now);
    if (opens !== null && (nextOnly === null || opens < nextOnly.until))
      nextOnly = { name: w.name, until: opens };
  }
  const hit = freeze ?? (insideOnly ? null : nextOnly);
  return hit === null ? null : { name: hit.name, until: new Date(hit.until).toISOString() };
}

const rank = (r: Risk): number => RISKS.indexOf(r);

/** The rule that decides a fix on a service: the first naming both, in list order. */
export function actionRuleFor(
  policy: Pick<Policy, 'actions'>,
  service: string,
  fixId: string,
): ActionRule | null {
  return (
    policy.actions.rules.find((r) => names(r.services, service) && names(r.fixes, fixId)) ?? null
  );
}

/**
 * Whether the policy allows `fix` on `service`. With no rules, every fix up to medium risk is
 * allowed and none is safe. With rules, the first rule naming the service and the fix
 * decides (allowed up to its max_risk, safe when it says so); a fix no rule names is not
 * allowed: the service acts only where a rule covers that action on that service.
 */
export function fixPermission(
  policy: Pick<Policy, 'actions'>,
  service: string,
  fix: { readonly id: string; readonly risk: Risk },
): FixPermission {
  if (policy.actions.rules.length === 0) {
    return rank(fix.risk) <= rank(DEFAULT_MAX_RISK)
      ? {
          allowed: true,
          safe: false,
          why: `no action rules: fixes up to ${DEFAULT_MAX_RISK} risk are allowed, none is safe without asking`,
        }
      : {
          allowed: false,
          safe: false,
          why: `no action rules: a ${fix.risk}-risk fix is not allowed (the default allows up to ${DEFAULT_MAX_RISK})`,
        };
  }
  const i = policy.actions.rules.findIndex(
    (r) => names(r.services, service) && names(r.fixes, fix.id),
  );
  const rule = policy.actions.rules[i];
  if (rule === undefined)
    return {
      allowed: false,
      safe: false,
      why: `no action rule names fix ${fix.id} on service ${service}`,
    };
  if (rank(fix.risk) > rank(rule.max_risk))
    return {
      allowed: false,
      safe: false,
      why: `action rule ${String(i)} allows fixes up to ${rule.max_risk} risk; ${fix.id} is ${fix.risk}`,
    };
  return {
    allowed: true,
    safe: rule.safe,
    why: rule.safe
      ? `action rule ${String(i)} allows ${fix.id} on ${service} and lists it as safe`
      : `action rule ${String(i)} allows ${fix.id} on ${service}, asking first`,
  };
}
