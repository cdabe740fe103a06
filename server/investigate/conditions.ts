// Whether a finding rule holds for a check's values. Every condition of `when` must hold.
//   eq, ne          equal (numbers as numbers, else as text; booleans as themselves)
//   gt, ge, lt, le  numbers only (a numeric string counts as its number)
//   in, not_in      equal to one of `than` (a list) / to none of them
//   matches         a JavaScript regular expression (no flags) found in the text
//   mentions        the text (or any text of a list) contains one of `than`'s words (at
//                   least 3 characters each): a list, or `{check.value}`, a value another
//                   check read for the same service (what a change added, say)
//   error_names     as mentions, but only a line that reads as an error counts ("config
//                   loaded: database shop_v2" names a value; it is no failure naming it)
//   present, absent the value is (not) null
// A null value makes every condition false except `absent`. A list value (a path with `[*]`)
// holds when any element holds, except `ne` and `not_in`, which must hold for every element;
// an empty list holds for none of them (but is `present`).
import type { PackCondition, PackFindingRule } from '../packs/index.js';

type Than = PackCondition['than'];

function asNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return null;
}

function equal(value: unknown, than: unknown): boolean {
  if (typeof value === 'boolean' || typeof than === 'boolean') return value === than;
  const a = asNumber(value);
  const b = asNumber(than);
  if (a !== null && b !== null) return a === b;
  if (typeof value === 'string' || typeof value === 'number') return String(value) === String(than);
  return false;
}

const regexCache = new Map<string, RegExp | null>();
function regexOf(source: string): RegExp | null {
  if (!regexCache.has(source)) {
    let re: RegExp | null = null;
    try {
      re = new RegExp(source);
    } catch {
      re = null;
    }
    if (regexCache.size > 500) regexCache.clear();
    regexCache.set(source, re);
  }
  return regexCache.get(source) ?? null;
}

/** One scalar value against one condition. */
function holdsFor(op: PackCondition['op'], value: unknown, than: Than): boolean {
  if (value === null || value === undefined) return false;
  switch (op) {
    case 'eq':
      return equal(value, than);
    case 'ne':
      return !equal(value, than);
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le': {
      const a = asNumber(value);
      const b = asNumber(than);
      if (a === null || b === null) return false;
      return op === 'gt' ? a > b : op === 'ge' ? a >= b : op === 'lt' ? a < b : a <= b;
    }
    case 'in':
      return Array.isArray(than) && than.some((t) => equal(value, t));
    case 'not_in':
      return Array.isArray(than) && !than.some((t) => equal(value, t));
    case 'matches': {
      if (typeof than !== 'string') return false;
      const re = regexOf(than);
      const text =
        typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : JSON.stringify(value);
      return re !== null && re.test(text);
    }
    case 'present':
      return true;
    case 'absent':
    case 'mentions': // judged on the whole value, above
    case 'error_names':
      return false;
  }
}

/** Values other checks read for the same service, for a `mentions` placeholder. */
export type OtherValues = (name: string) => unknown;

const WHOLE_PLACEHOLDER = /^\{([A-Za-z0-9_.:-]+)\}$/;

/** The name a condition's `than` refers to (`{change.diff.added}`), or null. */
export function thanReference(condition: PackCondition): string | null {
  if (!NAMING_OPS.has(condition.op) || typeof condition.than !== 'string') return null;
  return WHOLE_PLACEHOLDER.exec(condition.than)?.[1] ?? null;
}

const NAMING_OPS: ReadonlySet<PackCondition['op']> = new Set(['mentions', 'error_names']);

/**
 * A line that reports a failure. No nested quantifiers: linear on any line. The gate's
 * ERROR_RE (build/gate/svc-gate, for config_changes' named_in_errors) is a shorter list of
 * the same kind; they differ (its `not found`, `bad `; this one's `no such`, `could not`, …),
 * and making them one would change which lines count: a decision, not a tidy-up.
 */
const ERROR_LINE =
  /error|fail|refus|denied|cannot|can't|could not|unable|not exist|no such|invalid|unknown|fatal|panic|exception|timed out|timeout|unreachable|abort|emerg|crit/i;

/** An errno-style code (ENOTFOUND, ECONNREFUSED, EAI_AGAIN): a failure in a word of its own. */
const ERRNO =
  /\bE(?:AI_[A-Z]+|NOTFOUND|CONN[A-Z]+|TIMEDOUT|HOSTUNREACH|NETUNREACH|ADDRINUSE|ACCES|PERM|PIPE|[MN]FILE|NOENT|NOSPC|PROTO)\b/;
/** A dotted name (a host, a file): the words inside it are its name, not what happened. */
const DOTTED_NAME = /[A-Za-z0-9_/-]+(?:\.[A-Za-z0-9_-]+)+/g;

/** Whether a line reports a failure by its own words (db.lab.invalid is a host, no failure). */
const isErrorLine = (line: string): boolean => {
  const words = line.replace(DOTTED_NAME, ' ');
  return ERROR_LINE.test(words) || ERRNO.test(words);
};

const textsOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.flatMap(textsOf) : typeof v === 'string' ? [v] : [];

/**
 * `mentions`: a word of at least 3 characters found in the text; no words: false. With
 * `errorsOnly`, only in a line that reads as an error.
 */
function mentions(
  value: unknown,
  than: unknown,
  others: OtherValues | undefined,
  errorsOnly: boolean,
): boolean {
  const ref = typeof than === 'string' ? WHOLE_PLACEHOLDER.exec(than)?.[1] : undefined;
  const words = textsOf(ref === undefined ? than : others?.(ref)).filter((w) => w.length >= 3);
  if (words.length === 0) return false;
  const lines = textsOf(value).flatMap((t) => t.split('\n'));
  return lines.some(
    (line) => (!errorsOnly || isErrorLine(line)) && words.some((w) => line.includes(w)),
  );
}

/** Whether one condition holds for `value`. */
export function conditionHolds(
  condition: PackCondition,
  value: unknown,
  others?: OtherValues,
): boolean {
  const { op, than } = condition;
  if (value === null || value === undefined) return op === 'absent';
  if (op === 'mentions' || op === 'error_names')
    return mentions(value, than, others, op === 'error_names');
  if (op === 'present') return true;
  if (op === 'absent') return false;
  if (Array.isArray(value)) {
    const list = value as unknown[];
    if (op === 'ne' || op === 'not_in') return list.every((v) => holdsFor(op, v, than));
    return list.some((v) => holdsFor(op, v, than));
  }
  return holdsFor(op, value, than);
}

/** Whether every condition of the rule holds for the check's values. */
export function ruleHolds(
  rule: PackFindingRule,
  values: Readonly<Record<string, unknown>>,
  others?: OtherValues,
): boolean {
  return rule.when.every((c) =>
    conditionHolds(c, Object.hasOwn(values, c.value) ? values[c.value] : null, others),
  );
}

/** The values a rule looks at, by name: what a finding shows as its evidence. */
export function valuesOfRule(
  rule: PackFindingRule,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of rule.when)
    out[c.value] = Object.hasOwn(values, c.value) ? (values[c.value] ?? null) : null;
  return out;
}
