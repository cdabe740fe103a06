// Recorded connector answers for tests of the real packs (no servers): the healthy lab
// (fixtures/lab.json) plus the healthy answers of the read-only calls the catalogue added
// (fixtures/catalogue/healthy.json), a fault's answers on top, and an engine that reads them.
// Shared by lab-faults.test.ts and catalogue.test.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createFakeClock } from '../../shared/clock.js';
import { createEngine } from '../../investigate/engine.js';
import { loadSourcePacks } from './fixtures/source-packs.js';
import type { ConnectorLike, EstateLike } from '../../investigate/plan.js';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface Lab {
  readonly now: string;
  readonly estate: EstateLike;
  readonly connectors: ConnectorLike[];
  readonly answers: Record<string, unknown>;
}

export const readJson = <T>(name: string): T =>
  JSON.parse(readFileSync(`${FIXTURES}${name}`, 'utf8')) as T;

/**
 * The key a recorded answer is filed under: `<connector> <op>`, and for a PromQL query the
 * metric names it selects and the service it selects them for (`prometheus up@app`).
 */
export function answerKey(connector: string, op: string, args: Readonly<Record<string, unknown>>) {
  if (op !== 'query') return `${connector} ${op}`;
  const query = String(args['query']);
  const metrics = [
    ...new Set([...query.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\{/g)].map((m) => m[1])),
  ];
  const service = /service=~?"([^"]*)"/.exec(query)?.[1] ?? '';
  return `${connector} ${metrics.join('+')}@${service}`;
}

/** A finding's `call` (`op {json args}`) and connector back to its answer key. */
export function keyOfCall(connector: string, call: string): string {
  const space = call.indexOf(' ');
  const op = space < 0 ? call : call.slice(0, space);
  const args = space < 0 ? {} : (JSON.parse(call.slice(space + 1)) as Record<string, unknown>);
  return answerKey(connector, op, args);
}

/** A call function answering from `answers`; `{ "$error": "…" }` is a failed call. */
export function recorded(answers: Record<string, unknown>) {
  const asked: string[] = [];
  const call = (connector: string, op: string, args: Readonly<Record<string, unknown>>) => {
    const key = answerKey(connector, op, args);
    asked.push(key);
    if (!Object.hasOwn(answers, key))
      return Promise.reject(new Error(`no recorded answer for ${key}`));
    const answer = answers[key] as { $error?: string } | null;
    if (answer !== null && typeof answer === 'object' && typeof answer.$error === 'string')
      return Promise.reject(new Error(answer.$error));
    return Promise.resolve(structuredClone(answer));
  };
  return { call, asked };
}

export const lab = readJson<Lab>('lab.json');
/** The healthy answers of the calls the lab recording predates (inodes, restarts, locks, …). */
export const healthyExtra = readJson<{ answers: Record<string, unknown> }>(
  'catalogue/healthy.json',
).answers;
export const packs = loadSourcePacks();

/** An engine over the real packs that reads the healthy lab, then `answers` on top. */
export function engineFor(answers: Record<string, unknown>, estate: EstateLike = lab.estate) {
  const rec = recorded({ ...lab.answers, ...healthyExtra, ...answers });
  const engine = createEngine({
    packs: () => packs,
    estate: () => estate,
    connectors: () => lab.connectors,
    call: rec.call,
    clock: createFakeClock(lab.now),
  });
  return { engine, asked: rec.asked };
}
