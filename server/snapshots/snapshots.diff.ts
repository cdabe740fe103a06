// Setup facts and their differences: pure functions, shared by the service (to compare a
// read with the stored facts) and the projection (to apply a change event to them).

/** One connector's setup as `setup` answers it: flat key → short text. */
export type Facts = Readonly<Record<string, string>>;

export interface FactsDiff {
  readonly added: Readonly<Record<string, string>>;
  readonly removed: Readonly<Record<string, string>>;
  readonly changed: Readonly<Record<string, { readonly from: string; readonly to: string }>>;
}

/** Values longer than this are clipped before they are compared or stored. */
export const MAX_VALUE = 300;
export const MAX_KEY = 200;
/** Facts kept per connector; one more key says how many were left out. */
export const MAX_FACTS = 500;
export const TRUNCATED_KEY = 'facts_truncated';

/**
 * Keys that name credentials. The kinds never send such facts; this is a second line so
 * that a kind's mistake does not put a secret into the ledger, which cannot be edited.
 */
const SECRET_KEY = /passw(or)?d|secret|token|credential|api[_-]?key|private[_-]?key|authorization/i;

const clip = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** `scheme://user:pass@host` → `scheme://***@host`: a URL in a value never carries its login. */
const scrubUrls = (text: string): string =>
  text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');

/**
 * `password = x`, `"api_key": "x"`, `token: x` inside a value (the gate's masked diff of a
 * watched file) → `… = ***`, up to the next ` | ` (the separator of a diff's lines): the
 * gate masks these on the host; this is the second line, as for keys.
 */
const scrubAssignments = (text: string): string =>
  text.replace(
    /((?:passw|pwd|secret|token|key|credential|auth)[A-Za-z0-9_.-]*["']?\s*[:=]\s*)(?!\*\*\*)(?:(?! \| ).)+/gi,
    '$1***',
  );

/**
 * The facts of a `setup` answer `{facts: {…}}`, ready to compare and store: string values
 * (numbers and booleans as text, anything else dropped), credential-like keys dropped, URL
 * logins and credential assignments scrubbed, keys and values clipped, at most MAX_FACTS keys
 * in key order.
 */
export function normaliseFacts(answer: unknown): Facts {
  const facts =
    typeof answer === 'object' && answer !== null && !Array.isArray(answer)
      ? (answer as Record<string, unknown>)['facts']
      : undefined;
  if (typeof facts !== 'object' || facts === null || Array.isArray(facts))
    throw new Error('the setup answer has no facts object');
  const out: Record<string, string> = {};
  const keys = Object.keys(facts).sort();
  let kept = 0;
  for (const rawKey of keys) {
    const raw = (facts as Record<string, unknown>)[rawKey];
    const value =
      typeof raw === 'string'
        ? raw
        : typeof raw === 'number' || typeof raw === 'boolean'
          ? String(raw)
          : null;
    if (value === null || rawKey === '' || SECRET_KEY.test(rawKey)) continue;
    if (kept === MAX_FACTS) {
      out[TRUNCATED_KEY] = `more than ${String(MAX_FACTS)} facts; the rest were left out`;
      break;
    }
    out[clip(rawKey, MAX_KEY)] = clip(scrubAssignments(scrubUrls(value)), MAX_VALUE);
    kept += 1;
  }
  return out;
}

export function diffFacts(before: Facts | null, after: Facts): FactsDiff {
  const added: Record<string, string> = {};
  const removed: Record<string, string> = {};
  const changed: Record<string, { from: string; to: string }> = {};
  const old = before ?? {};
  for (const [k, v] of Object.entries(after)) {
    const was = old[k];
    if (was === undefined) added[k] = v;
    else if (was !== v) changed[k] = { from: was, to: v };
  }
  for (const [k, v] of Object.entries(old)) if (!(k in after)) removed[k] = v;
  return { added, removed, changed };
}

export const isEmptyDiff = (d: FactsDiff): boolean =>
  Object.keys(d.added).length === 0 &&
  Object.keys(d.removed).length === 0 &&
  Object.keys(d.changed).length === 0;

/** The facts after a change event: how the projection rebuilds them from the ledger alone. */
export function applyDiff(before: Facts, diff: FactsDiff): Facts {
  const out: Record<string, string> = { ...before };
  for (const k of Object.keys(diff.removed)) delete out[k];
  for (const [k, v] of Object.entries(diff.added)) out[k] = v;
  for (const [k, v] of Object.entries(diff.changed)) out[k] = v.to;
  return out;
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** A diff as read back from an event's data; anything malformed is left out. */
export function diffOf(data: Readonly<Record<string, unknown>>): FactsDiff {
  const strings = (v: unknown): Record<string, string> =>
    Object.fromEntries(
      Object.entries(record(v)).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  const changed: Record<string, { from: string; to: string }> = {};
  for (const [k, v] of Object.entries(record(data['changed']))) {
    const c = record(v);
    if (typeof c['from'] === 'string' && typeof c['to'] === 'string')
      changed[k] = { from: c['from'], to: c['to'] };
  }
  return { added: strings(data['added']), removed: strings(data['removed']), changed };
}
