// Evaluating a value path (PackValue.path) on a connector's answer. The syntax is checked
// when a pack is validated (server/packs/path-syntax.ts); here it is read:
//   `a.b` property; `a[2]` index; `a[name={service}]` first element whose `name` equals the
//   (templated) value; `a[*].b` every element; a final `|count`, `|max`, `|min`, `|sum`,
//   `|first`, `|any` or `|none` turns a list into one value. A path may start with a
//   selector (`[0].commit`) when the answer is itself a list.
// A path that finds nothing gives null. After `[*]` the result is a list (elements that lack
// the rest of the path are left out), so `[*].commit|count` of an empty answer is 0.
import { fillText, type Lookup } from '../packs/index.js';
import { isRecord } from '../shared/values.js';

type Step =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'all' }
  | { readonly kind: 'where'; readonly key: string; readonly value: string };

type Aggregate = 'count' | 'max' | 'min' | 'sum' | 'first' | 'any' | 'none';
const AGGREGATES: readonly string[] = ['count', 'max', 'min', 'sum', 'first', 'any', 'none'];

interface Parsed {
  readonly steps: readonly Step[];
  readonly aggregate: Aggregate | null;
}

const NAME = /^[A-Za-z0-9_-]+/;

/** Parses a path; throws with the reason when it is malformed. */
export function parsePath(path: string): Parsed {
  const steps: Step[] = [];
  let rest = path;
  let aggregate: Aggregate | null = null;
  const bar = rest.lastIndexOf('|');
  if (bar >= 0 && !rest.slice(bar).includes(']')) {
    const agg = rest.slice(bar + 1);
    if (!AGGREGATES.includes(agg)) throw new Error(`path ${path}: unknown aggregate |${agg}`);
    aggregate = agg as Aggregate;
    rest = rest.slice(0, bar);
  }
  let first = true;
  while (rest !== '') {
    if (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      if (close < 0) throw new Error(`path ${path}: unclosed [`);
      const inner = rest.slice(1, close);
      rest = rest.slice(close + 1);
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else {
        const eq = inner.indexOf('=');
        if (eq <= 0) throw new Error(`path ${path}: bad selector [${inner}]`);
        steps.push({ kind: 'where', key: inner.slice(0, eq), value: inner.slice(eq + 1) });
      }
    } else {
      if (!first) {
        if (!rest.startsWith('.')) throw new Error(`path ${path}: unexpected ${rest.charAt(0)}`);
        rest = rest.slice(1);
      }
      const m = NAME.exec(rest);
      if (m === null) throw new Error(`path ${path}: empty name`);
      steps.push({ kind: 'name', name: m[0] });
      rest = rest.slice(m[0].length);
    }
    first = false;
  }
  if (steps.length === 0) throw new Error(`path ${path}: empty`);
  return { steps, aggregate };
}

/** Scalars compare as text: `[pid=42]` finds `{pid: 42}`. */
const scalarText = (v: unknown): string | null =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;

const numbers = (list: readonly unknown[]): number[] =>
  list.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));

function aggregateOf(kind: Aggregate, list: readonly unknown[] | null): unknown {
  if (list === null) return null;
  switch (kind) {
    case 'count':
      return list.length;
    case 'max': {
      const n = numbers(list);
      return n.length === 0 ? null : Math.max(...n);
    }
    case 'min': {
      const n = numbers(list);
      return n.length === 0 ? null : Math.min(...n);
    }
    case 'sum':
      return numbers(list).reduce((a, b) => a + b, 0);
    case 'first':
      return list[0] ?? null;
    case 'any':
      return list.some(Boolean);
    case 'none':
      return !list.some(Boolean);
  }
}

export interface PathResult {
  readonly value: unknown;
  /** placeholders in `[key=value]` selectors that had no value (the result is then null) */
  readonly missing: readonly string[];
}

/** Evaluates `path` on `answer`; `lookup` fills `{name}` in selector values. */
export function evaluatePath(
  answer: unknown,
  path: string,
  lookup: Lookup = () => undefined,
): PathResult {
  const { steps, aggregate } = parsePath(path);
  let nodes: unknown[] = [answer];
  let many = false;
  const missing: string[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'name':
        nodes = nodes.flatMap((n) =>
          isRecord(n) && Object.hasOwn(n, step.name) && n[step.name] !== undefined
            ? [n[step.name]]
            : [],
        );
        break;
      case 'index':
        nodes = nodes.flatMap((n) =>
          Array.isArray(n) && step.index < n.length ? [n[step.index] as unknown] : [],
        );
        break;
      case 'all':
        nodes = nodes.flatMap((n) => (Array.isArray(n) ? (n as unknown[]) : []));
        many = true;
        break;
      case 'where': {
        const filled = fillText(step.value, lookup);
        if (filled.missing.length > 0) {
          missing.push(...filled.missing.filter((m) => !missing.includes(m)));
          nodes = [];
          break;
        }
        nodes = nodes.flatMap((n) => {
          if (!Array.isArray(n)) return [];
          const hit = (n as unknown[]).find(
            (e) => isRecord(e) && scalarText(e[step.key]) === filled.value,
          );
          return hit === undefined ? [] : [hit];
        });
        break;
      }
    }
  }
  nodes = nodes.filter((n) => n !== undefined);
  if (missing.length > 0) return { value: null, missing };
  if (many) {
    return { value: aggregate === null ? nodes : aggregateOf(aggregate, nodes), missing };
  }
  const single = nodes[0] ?? null;
  if (aggregate === null) return { value: single, missing };
  const list = Array.isArray(single) ? (single as unknown[]) : single === null ? null : [single];
  return { value: aggregateOf(aggregate, list), missing };
}

/** Every value of a check from one answer, each by its path. */
export function evaluateValues(
  answer: unknown,
  values: Readonly<Record<string, { readonly path: string }>>,
  lookup: Lookup = () => undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(values)) {
    try {
      out[name] = evaluatePath(answer, v.path, lookup).value;
    } catch {
      out[name] = null; // a malformed path reads nothing (the pack schema refuses them)
    }
  }
  return out;
}
