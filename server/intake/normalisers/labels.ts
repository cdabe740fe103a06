// Label and link helpers shared by the normalisers: every source turns part of its body into
// string labels and at most one link, under the same bounds, so those rules live here once.
import { arr, boundedJson, isObject, str } from './read.js';

export type Labels = Record<string, string>;
/** Sets `out[key]` from a value; a value that reads as no text sets nothing. */
export type PutLabel = (out: Labels, key: string, v: unknown) => void;

/** Most labels a bounded bag holds, so a hostile body cannot blow the ledger up. */
export const MAX_LABELS = 200;
/** Longest label value kept. */
export const MAX_LABEL_LENGTH = 1000;

/** str(), with booleans as "true"/"false": sources send flags as JSON booleans. */
export function scalarText(v: unknown): string | undefined {
  return typeof v === 'boolean' ? String(v) : str(v);
}

/** The first 100 non-empty items of a list joined with ", "; undefined when there are none. */
export function listText(v: unknown): string | undefined {
  const parts = (arr(v) ?? []).slice(0, 100).flatMap((x) => str(x) ?? []);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** A label setter from a text reader: one place cuts every label to MAX_LABEL_LENGTH. */
export function labelSetter(text: (v: unknown) => string | undefined): PutLabel {
  return (out, key, v) => {
    const s = text(v);
    if (s !== undefined) out[key] = s.slice(0, MAX_LABEL_LENGTH);
  };
}

/** Strings and numbers; booleans, lists and objects are skipped. */
export const putString = labelSetter(str);
/** Strings, numbers and booleans; lists and objects are skipped. */
export const putScalar = labelSetter(scalarText);
/** Strings, numbers, booleans, and lists joined with ", " (Graylog fields, Splunk result rows). */
export const putScalarOrList = labelSetter((v) => (Array.isArray(v) ? listText(v) : scalarText(v)));

export interface LabelTextOptions {
  /** Skip integers past 2^53: JSON.parse has lost their digits (nanosecond times, flow ids). */
  readonly exactIntegers?: boolean;
  /** Read list items that are objects by their `name` (Pingdom's tags). */
  readonly itemNames?: boolean;
}

/** Label text: primitives as text, lists of primitives joined with commas, objects skipped. */
export function labelText(v: unknown, options: LabelTextOptions = {}): string | undefined {
  if (typeof v === 'boolean') return String(v);
  const inexact = typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v);
  if (options.exactIntegers === true && inexact) return undefined;
  if (Array.isArray(v)) {
    const parts = v
      .slice(0, 100)
      .flatMap((x) => str(options.itemNames === true && isObject(x) ? x['name'] : x) ?? []);
    return parts.length > 0 ? parts.join(',').slice(0, MAX_LABEL_LENGTH) : undefined;
  }
  return str(v)?.slice(0, MAX_LABEL_LENGTH);
}

export interface LabelWriter {
  /** One label (labelText), unless the bag already holds MAX_LABELS. */
  readonly put: PutLabel;
  /** Every primitive (or list of primitives) under an object, keys joined with dots, 4 levels deep. */
  readonly putNested: PutLabel;
}

/** Writers for a bounded label bag, for sources that copy open-ended parts of their body. */
export function labelWriter(options: LabelTextOptions = {}): LabelWriter {
  const put: PutLabel = (labels, key, v) => {
    if (Object.keys(labels).length >= MAX_LABELS) return;
    const t = labelText(v, options);
    if (t !== undefined) labels[key] = t;
  };
  const putNested = (labels: Labels, prefix: string, v: unknown, depth = 0): void => {
    if (!isObject(v) || depth > 3) return;
    for (const [k, val] of Object.entries(v)) {
      if (Object.keys(labels).length >= MAX_LABELS) return;
      const key = `${prefix}.${k}`;
      if (isObject(val)) putNested(labels, key, val, depth + 1);
      else put(labels, key, val);
    }
  };
  return { put, putNested: (labels, prefix, v) => putNested(labels, prefix, v) };
}

/** The bounded bag's writers with the default label text. */
export const { put: putLabel, putNested } = labelWriter();

/**
 * Flatten an object into string labels: nested keys joined with dots, arrays as compact
 * JSON. Bounded on every axis (depth, count, length), so a hostile body cannot blow the
 * stack or the ledger up.
 */
export function flatten(v: unknown, prefix = '', out: Labels = {}, depth = 0): Labels {
  if (!isObject(v) || depth > 4) return out;
  for (const [k, val] of Object.entries(v)) {
    if (Object.keys(out).length >= MAX_LABELS) break;
    const key = prefix === '' ? k : `${prefix}.${k}`;
    if (isObject(val)) flatten(val, key, out, depth + 1);
    else if (Array.isArray(val)) out[key] = boundedJson(val, 3).slice(0, MAX_LABEL_LENGTH);
    else if (val !== null) out[key] = String(val).slice(0, MAX_LABEL_LENGTH);
  }
  return out;
}

/** An absolute http(s) URL that parses (resolved against `base` when given), else null. */
export function absoluteLink(v: unknown, base?: string): string | null {
  const s = str(v);
  if (s === undefined) return null;
  try {
    const u = base === undefined ? new URL(s) : new URL(s, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return base === undefined ? s : u.href;
  } catch {
    return null;
  }
}

/** The first value that starts with http:// or https://, as the source wrote it; else null. */
export function httpLink(...values: unknown[]): string | null {
  for (const v of values) {
    const s = str(v);
    if (s !== undefined && /^https?:\/\//i.test(s)) return s;
  }
  return null;
}

/** An http(s) URL with a host, at most 2000 characters: some senders leave a bare "https://". */
export function hostLink(v: unknown): string | null {
  const s = str(v);
  return s !== undefined && s.length <= 2000 && /^https?:\/\/[^/\s]+/i.test(s) ? s : null;
}
