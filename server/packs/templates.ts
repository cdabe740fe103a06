// `{name}` placeholders in pack strings (args, titles, says, path filter values), filled from
// the episode's variables and the values read so far. A name with no value (or a null one)
// is reported as missing and left in the text as `{name}`: the caller decides that the check
// or fix is not runnable. Never an empty string in its place.

/** Reads one placeholder's value; undefined or null: the name has no value. */
export type Lookup = (name: string) => unknown;

/** A placeholder: letters, digits and `_ . : -` between braces (PromQL `{a="b"}` is not one). */
const PLACEHOLDER = /\{([A-Za-z0-9_.:-]+)\}/g;
const WHOLE = /^\{([A-Za-z0-9_.:-]+)\}$/;

export interface Filled<T> {
  readonly value: T;
  /** names with no value, in order of first use */
  readonly missing: readonly string[];
}

/** The names a template uses, each once. */
export function placeholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1] ?? ''))];
}

/** A value as it reads in text: lists joined with ", ", objects as JSON. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(asText).join(', ');
  return JSON.stringify(value) ?? '';
}

const known = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * Puts a value into a query language at a placeholder (query-escape.ts); `before` is the
 * template before the placeholder. Without one, values go in as text.
 */
export type Escape = (value: unknown, before: string) => string;

/** Fills every placeholder of `template`; unknown ones stay as `{name}` and are reported. */
export function fillText(template: string, lookup: Lookup, escape?: Escape): Filled<string> {
  const missing: string[] = [];
  const value = template.replace(PLACEHOLDER, (whole, name: string, at: number) => {
    const v = lookup(name);
    if (!known(v)) {
      if (!missing.includes(name)) missing.push(name);
      return whole;
    }
    return escape === undefined ? asText(v) : escape(v, template.slice(0, at));
  });
  return { value, missing };
}

/**
 * One argument: a string that is a single placeholder keeps its value's type (a number stays
 * a number); any other string is filled as text; numbers and booleans pass as they are.
 */
export function fillValue(
  raw: string | number | boolean,
  lookup: Lookup,
  escape?: Escape,
): Filled<string | number | boolean> {
  if (typeof raw !== 'string') return { value: raw, missing: [] };
  const whole = WHOLE.exec(raw);
  if (whole?.[1] !== undefined) {
    const v = lookup(whole[1]);
    if (typeof v === 'number' || typeof v === 'boolean') return { value: v, missing: [] };
  }
  return fillText(raw, lookup, escape);
}

/** A call's arguments, every placeholder filled; `missing` lists the names that had no value. */
export function fillArgs(
  args: Readonly<Record<string, string | number | boolean>> | undefined,
  lookup: Lookup,
  escape?: Escape,
): Filled<Record<string, string | number | boolean>> {
  const out: Record<string, string | number | boolean> = {};
  const missing: string[] = [];
  for (const [key, raw] of Object.entries(args ?? {})) {
    const filled = fillValue(raw, lookup, escape);
    out[key] = filled.value;
    for (const m of filled.missing) if (!missing.includes(m)) missing.push(m);
  }
  return { value: out, missing };
}

/** A lookup over flat records (`service`, `label.env`, `host.services.state`), first wins. */
export function lookupIn(...records: readonly Readonly<Record<string, unknown>>[]): Lookup {
  return (name) => {
    for (const r of records) {
      if (Object.hasOwn(r, name) && known(r[name])) return r[name];
    }
    return undefined;
  };
}

/** A connector call with its arguments filled; `missing` lists the names that had no value. */
export function fillCall(
  call: {
    readonly op: string;
    readonly args?: Readonly<Record<string, string | number | boolean>>;
  },
  lookup: Lookup,
): { call: { op: string; args: Record<string, string | number | boolean> }; missing: string[] } {
  const filled = fillArgs(call.args, lookup);
  return { call: { op: call.op, args: filled.value }, missing: [...filled.missing] };
}
