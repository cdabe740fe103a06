// Runs planned checks in parallel through an injected `call` (the connectors runtime, which
// bounds calls in flight per connector) and turns each answer into values and findings:
// the check's value paths read the answer, each finding rule whose conditions hold is a
// finding. A call that fails is the finding `<check>.unreadable` with the error's message
// (connector errors are written to be safe to show); so is a check no connector reaches and
// one whose arguments name a value nobody has. A check whose arguments (or `mentions`
// conditions) name a value another check reads for the same service (`{host.setup.cache}`)
// waits for that check; when that check found no such value (no commit, so no diff) it has
// nothing to read and gives no finding at all. The same call (connector, operation and
// arguments) asked for several services is made once.
import type { Finding } from './types.js';
import type { PlannedCheck } from './plan.js';
import { ruleHolds, thanReference, valuesOfRule, type OtherValues } from './conditions.js';
import { evaluateValues } from './paths.js';
import { fillArgs, fillText, lookupIn, type Escape } from '../packs/index.js';

/** One connector operation, answered or failed within `timeoutMs`. */
export type CallFn = (
  connector: string,
  op: string,
  args: Readonly<Record<string, unknown>>,
  timeoutMs: number,
) => Promise<unknown>;

export interface RunDeps {
  readonly call: CallFn;
  /** ISO-8601 now, for each finding's `at` */
  readonly now: () => string;
  /** the episode's variables for a service: service, host, alertname, label.<name>, … */
  readonly variables: (service: string) => Readonly<Record<string, unknown>>;
  /** used when a check sets no timeout_s (default 15) */
  readonly defaultTimeoutS?: number;
  /**
   * How values go into a connector's query language (PromQL, LogQL, SQL); undefined: the
   * connector takes none, values go in as text.
   */
  readonly escapeFor?: (connector: string) => Escape | undefined;
}

export interface CheckResults {
  /** in plan order */
  readonly findings: Finding[];
  /** per service: `<check id>.<value name>` → value (the first readable answer's) */
  readonly values: Record<string, Record<string, unknown>>;
}

export const EXCERPT_MAX = 1000;
const MESSAGE_MAX = 300;

const clip = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** At most 1,000 characters of the answer as JSON. */
export function excerptOf(answer: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(answer) ?? 'null';
  } catch {
    json = String(answer);
  }
  return clip(json, EXCERPT_MAX);
}

export const callText = (op: string, args: Readonly<Record<string, unknown>>): string =>
  `${op} ${JSON.stringify(args)}`;

function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return clip(text.replace(/\s+/g, ' ').trim() || 'failed without a message', MESSAGE_MAX);
}

function unreadable(p: PlannedCheck, call: string, says: string, at: string): Finding {
  return {
    id: `${p.check.id}.unreadable`,
    check: p.check.id,
    connector: p.connector ?? '',
    call,
    service: p.service,
    says,
    values: {},
    excerpt: '',
    at,
    readable: false,
  };
}

/** The findings of one answer: every rule that holds, its `says` filled in. */
export function findingsOf(
  p: PlannedCheck,
  call: string,
  answer: unknown,
  values: Readonly<Record<string, unknown>>,
  variables: Readonly<Record<string, unknown>>,
  at: string,
  others?: OtherValues,
): Finding[] {
  const qualified: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) qualified[`${p.check.id}.${k}`] = v;
  const lookup = lookupIn(qualified, variables);
  const excerpt = excerptOf(answer);
  return p.check.findings
    .filter((rule) => ruleHolds(rule, values, others))
    .map((rule) => ({
      id: `${p.check.id}.${rule.id}`,
      check: p.check.id,
      connector: p.connector ?? '',
      call,
      service: p.service,
      says: saysOf(rule.says, lookup),
      values: valuesOfRule(rule, values),
      excerpt,
      at,
      readable: true,
    }));
}

/** A finding's text with nothing left unfilled: a name with no value reads "unknown". */
function saysOf(template: string, lookup: ReturnType<typeof lookupIn>): string {
  const filled = fillText(template, lookup);
  return filled.missing.reduce(
    (text, name) => text.split(`{${name}}`).join('unknown'),
    filled.value,
  );
}

/** The values of other checks a check's `mentions` / `error_names` conditions compare with. */
const comparedWith = (p: PlannedCheck): string[] =>
  p.check.findings.flatMap((r) => r.when.map(thanReference)).filter((r) => r !== null);

/**
 * A check of the dependencies on a service known to have none has nothing to read: no
 * finding, not an unreadable one (an unknown estate is unreadable: run discovery).
 */
const NOTHING_TO_READ = 'no_dependencies';

interface Pending {
  readonly index: number;
  readonly p: PlannedCheck;
}

export async function runChecks(
  planned: readonly PlannedCheck[],
  deps: RunDeps,
): Promise<CheckResults> {
  const byIndex: Finding[][] = planned.map(() => []);
  const values: Record<string, Record<string, unknown>> = {};
  const valuesOf = (service: string): Record<string, unknown> => (values[service] ??= {});
  const defaultTimeoutS = deps.defaultTimeoutS ?? 15;
  // The same call for several services (a git log, a host's units) is made once.
  const shared = new Map<string, Promise<unknown>>();
  const callOnce = (connector: string, op: string, args: Record<string, unknown>, ms: number) => {
    const key = `${connector}\u0000${callText(op, args)}`;
    let p = shared.get(key);
    if (p === undefined) {
      p = deps.call(connector, op, args, ms);
      shared.set(key, p);
    }
    return p;
  };

  // Checks of a service answered (`read`), or with nothing to read (`skipped`): a check that
  // needs a value one of them did not have has nothing to read either (no commit touched the
  // service, so there is no diff to show); one that needs an unreadable check's value is
  // unreadable itself.
  const answered = new Set<string>();
  const skipped = new Set<string>();
  const key = (service: string, name: string) =>
    `${service}\u0000${name.slice(0, name.lastIndexOf('.'))}`;
  const nothingFrom = (service: string, names: readonly string[]) =>
    names.length > 0 &&
    names.every((n) => answered.has(key(service, n)) || skipped.has(key(service, n)));
  const skip = (item: Pending) => {
    byIndex[item.index] = [];
    skipped.add(`${item.p.service}\u0000${item.p.check.id}`);
  };

  let pending: Pending[] = [];
  planned.forEach((p, index) => {
    if (p.connector === null || p.problem !== null) {
      const call = callText(p.check.call.op, p.check.call.args ?? {});
      byIndex[index] = [unreadable(p, call, p.problem ?? 'no connector', deps.now())];
    } else pending.push({ index, p });
  });

  while (pending.length > 0) {
    const ready: { item: Pending; args: Record<string, unknown> }[] = [];
    const waiting: Pending[] = [];
    for (const item of pending) {
      const { p } = item;
      const vars = deps.variables(p.service);
      const filled = fillArgs(
        p.check.call.args,
        lookupIn(valuesOf(p.service), vars),
        deps.escapeFor?.(p.connector ?? ''),
      );
      // A name another pending check of this service will read: wait for it.
      const later = [...filled.missing, ...comparedWith(p)].some((name) =>
        pending.some(
          (o) => o !== item && o.p.service === p.service && name.startsWith(`${o.p.check.id}.`),
        ),
      );
      if (later) {
        waiting.push(item);
        continue;
      }
      if (comparedWith(p).some((n) => skipped.has(key(p.service, n)))) {
        skip(item);
        continue;
      }
      if (filled.missing.length === 0) {
        ready.push({ item, args: filled.value });
        continue;
      }
      if (
        (vars[NOTHING_TO_READ] === true && filled.missing.every((m) => m === 'dependencies')) ||
        nothingFrom(p.service, filled.missing)
      ) {
        skip(item);
        continue;
      }
      byIndex[item.index] = [
        unreadable(
          p,
          callText(p.check.call.op, p.check.call.args ?? {}),
          `not run: no value for ${filled.missing.map((m) => `{${m}}`).join(', ')}`,
          deps.now(),
        ),
      ];
    }
    // No check answered, skipped or failed this round: what waits can never be filled.
    if (ready.length === 0 && waiting.length === pending.length) {
      for (const item of waiting) {
        byIndex[item.index] = [
          unreadable(
            item.p,
            callText(item.p.check.call.op, item.p.check.call.args ?? {}),
            'not run: its arguments wait on values no check could read',
            deps.now(),
          ),
        ];
      }
      break;
    }
    await Promise.all(
      ready.map(async ({ item, args }) => {
        const { p } = item;
        const call = callText(p.check.call.op, args);
        const timeoutMs = (p.check.timeout_s ?? defaultTimeoutS) * 1000;
        let answer: unknown;
        try {
          answer = structuredClone(
            await callOnce(p.connector ?? '', p.check.call.op, args, timeoutMs),
          );
        } catch (err) {
          byIndex[item.index] = [
            unreadable(p, call, `could not read: ${messageOf(err)}`, deps.now()),
          ];
          return;
        }
        answered.add(`${p.service}\u0000${p.check.id}`);
        const vars = deps.variables(p.service);
        const own = valuesOf(p.service);
        const read = evaluateValues(answer, p.check.values, lookupIn(own, vars));
        for (const [name, v] of Object.entries(read)) {
          const key = `${p.check.id}.${name}`;
          if (own[key] === undefined || own[key] === null) own[key] = v;
        }
        byIndex[item.index] = findingsOf(
          p,
          call,
          answer,
          read,
          vars,
          deps.now(),
          (name) => own[name],
        );
      }),
    );
    pending = waiting;
  }
  return { findings: byIndex.flat(), values };
}
