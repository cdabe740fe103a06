// The shared test harness of the normaliser tests (<source>.test.ts): reading a body, the
// fixture-expectation tables, detection, the fingerprint pairing, and the hostile-input
// sweep. Test-only: it imports vitest.
import { expect, it } from 'vitest';
import { checkSignal } from '../../intake/signal-check.js';
import {
  NotReadableError,
  type NormaliseContext,
  type NormaliseResult,
  type Normaliser,
  type Signal,
} from '../../intake/signal.js';
import {
  CONTEXT,
  projectFixtures,
  sharedFixtures,
  sharedSources,
  type Fixture,
} from './normaliser-fixtures.js';

// What a fixture gives ---------------------------------------------------------------------

/** The fields every expectation table compares. */
export type Core = Pick<
  Signal,
  'name' | 'status' | 'severity' | 'service' | 'resource' | 'fingerprint'
>;
/** Core, with the times and the link. */
export type Fields = Core & Pick<Signal, 'started_at' | 'ended_at' | 'link'>;
/** A control message, by its reason. */
export interface Control {
  readonly control: string;
}
/** What a fixture gives: its signals (as picked), or a control message. */
export type Want<T> = readonly T[] | Control;
/** Want, with the number of signals stated as well. */
export type CountedWant<T> = { readonly count: number; readonly signals: readonly T[] } | Control;

export const core = (s: Signal): Core => ({
  name: s.name,
  status: s.status,
  severity: s.severity,
  service: s.service,
  resource: s.resource,
  fingerprint: s.fingerprint,
});

export const fields = (s: Signal): Fields => ({
  ...core(s),
  started_at: s.started_at,
  ended_at: s.ended_at,
  link: s.link,
});

/** The signals of a result, each passing the intake's shape check; throws on a control. */
function signalsOf(r: NormaliseResult, source: string): readonly Signal[] {
  if (r.kind !== 'signals') throw new Error(`expected signals, got control: ${r.reason}`);
  r.signals.forEach((s, i) => checkSignal(s, i, source));
  return r.signals;
}

/** Reading bodies with one normaliser (in the shared test context). */
export interface Reader {
  /** The normaliser's result for a body. */
  readonly run: (body: unknown) => NormaliseResult;
  /** The signals of a result, each passing the intake's shape check; throws on a control. */
  readonly signalsOf: (r: NormaliseResult) => readonly Signal[];
  /** The first signal of a body (undefined when it gives none). */
  readonly first: (body: unknown) => Signal | undefined;
  /** The one signal of a body: expects exactly one. */
  readonly only: (body: unknown) => Signal;
  /** A project fixture's body, which must be a JSON object. */
  readonly project: (file: string) => Record<string, unknown>;
}

export function readerFor(normaliser: Normaliser): Reader {
  const run = (body: unknown): NormaliseResult => normaliser.normalise(body, CONTEXT);
  const signals = (r: NormaliseResult): readonly Signal[] => signalsOf(r, normaliser.source);
  return {
    run,
    signalsOf: signals,
    first: (body) => signals(run(body))[0],
    only: (body) => {
      const [s, ...rest] = signals(run(body));
      expect(rest).toHaveLength(0);
      if (s === undefined) throw new Error('no signal');
      return s;
    },
    project: (file) => recordOf(projectFixtures(normaliser.source), file),
  };
}

/** The body of the fixture named file. */
export function bodyOf(fixtures: readonly Fixture[], file: string): unknown {
  const f = fixtures.find((x) => x.file === file);
  if (f === undefined) throw new Error(`no fixture ${file}`);
  return f.body;
}

/** The body of the fixture named file, which must be a JSON object. */
function recordOf(fixtures: readonly Fixture[], file: string): Record<string, unknown> {
  const body = fixtures.find((f) => f.file === file)?.body;
  if (typeof body !== 'object' || body === null) throw new Error(`no fixture ${file}`);
  return body as Record<string, unknown>;
}

/** The project and the shared fixtures of a source. */
export const allFixtures = (source: string): Fixture[] => [
  ...projectFixtures(source),
  ...sharedFixtures(source),
];

// Expectation tables -----------------------------------------------------------------------

/** Every fixture file has an entry in the table, and every entry a file. */
function expectTableCovers(fixtures: readonly Fixture[], table: object): void {
  expect(fixtures.map((f) => f.file).sort()).toEqual(Object.keys(table).sort());
}

/** A result is what the table wants: the control message, or the signals as picked. */
function expectWanted<T>(
  r: NormaliseResult,
  want: Want<T> | CountedWant<T> | undefined,
  pick: (s: Signal) => T,
  source: string,
): void {
  if (want === undefined) throw new Error('no expectation for this fixture');
  if ('control' in want) {
    expect(r).toEqual({ kind: 'control', reason: want.control });
  } else if ('count' in want) {
    const signals = signalsOf(r, source);
    expect(signals).toHaveLength(want.count);
    expect(signals.map(pick)).toEqual(want.signals);
  } else {
    expect(signalsOf(r, source).map(pick)).toEqual(want);
  }
}

/**
 * The tests of one expectation table, registered in the calling describe: that the table
 * covers the fixture files, then one test a fixture (named by its file) comparing the
 * result, and with `detect`, that the normaliser detects the body.
 */
export function fixtureTests<T>(
  normaliser: Normaliser,
  fixtures: readonly Fixture[],
  table: Readonly<Record<string, Want<T> | CountedWant<T>>>,
  pick: (s: Signal) => T,
  options: { readonly shared?: boolean; readonly detect?: boolean } = {},
): void {
  const which = options.shared === true ? 'shared fixture' : 'fixture';
  it(`has an expectation for every ${which} file`, () => {
    expectTableCovers(fixtures, table);
  });
  for (const { file, body } of fixtures) {
    it(file, () => {
      expectWanted(normaliser.normalise(body, CONTEXT), table[file], pick, normaliser.source);
      if (options.detect === true) expect(normaliser.detect(body, CONTEXT)).toBe(true);
    });
  }
}

/** A firing signal and its resolution: the same alert instance, the same fingerprint. */
export function expectPaired(firing: Signal | undefined, resolved: Signal | undefined): void {
  expect([firing?.status, resolved?.status]).toEqual(['firing', 'resolved']);
  expect(resolved?.fingerprint).toBe(firing?.fingerprint);
}

// Detection --------------------------------------------------------------------------------

/** The normaliser detects every one of the fixtures. */
export function expectDetected(normaliser: Normaliser, fixtures: readonly Fixture[]): void {
  for (const { file, body } of fixtures) expect(normaliser.detect(body, CONTEXT), file).toBe(true);
}

/** The normaliser detects none of the bodies. */
export function expectNotDetected(normaliser: Normaliser, bodies: readonly unknown[]): void {
  bodies.forEach((body, i) => {
    expect(normaliser.detect(body, CONTEXT), `body ${String(i)}`).toBe(false);
  });
}

/** The normaliser detects none of the fixtures (of other sources). */
export function expectFixturesNotDetected(
  normaliser: Normaliser,
  fixtures: readonly Fixture[],
  prefix = '',
): void {
  for (const { file, body } of fixtures) {
    expect(normaliser.detect(body, CONTEXT), `${prefix}${file}`).toBe(false);
  }
}

/** The normaliser detects none of the shared fixtures of the other sources. */
export function expectOtherSourcesNotDetected(normaliser: Normaliser): void {
  for (const other of sharedSources().filter((s) => s !== normaliser.source)) {
    expectFixturesNotDetected(normaliser, sharedFixtures(other), `${other}/`);
  }
}

// Hostile input ----------------------------------------------------------------------------

/**
 * Detect answers a boolean, and normalise either throws NotReadableError or gives a result:
 * signals that pass the intake's shape check, or a control message with a reason.
 */
export function expectSafe(
  normaliser: Normaliser,
  body: unknown,
  ctx: NormaliseContext = CONTEXT,
  label?: string,
): void {
  expect(typeof normaliser.detect(body, ctx), label).toBe('boolean');
  let r: NormaliseResult;
  try {
    r = normaliser.normalise(body, ctx);
  } catch (err) {
    expect(err, label).toBeInstanceOf(NotReadableError);
    return;
  }
  if (r.kind === 'signals') r.signals.forEach((s, i) => checkSignal(s, i, normaliser.source));
  else expect(typeof r.reason, label).toBe('string');
}

/** Bodies that are no alert of any source: wrong types, {}, and alerts that are no list. */
export const UNREADABLE_BODIES: readonly unknown[] = [null, 42, 'x', [], {}, { alerts: 'no' }];

/** Throwing NotReadableError for each of the bodies. */
export function expectNotReadable(normaliser: Normaliser, bodies: readonly unknown[]): void {
  for (const body of bodies) {
    expect(() => normaliser.normalise(body, CONTEXT), JSON.stringify(body)).toThrow(
      NotReadableError,
    );
  }
}

/** `levels` objects nested in each other under `key`, around leaf. */
export function nested(key: string, levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { [key]: v };
  return v;
}

/** `levels` arrays nested in each other, around an empty one. */
export function deepArray(levels: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

/** Bodies of no source: wrong types, very deep nesting, very long strings. */
export function hostileBodies(): unknown[] {
  return [
    null,
    42,
    'x',
    '',
    true,
    [],
    {},
    [{}],
    { alerts: 'no' },
    { alerts: [null, 1, 'x', []] },
    nested('a', 100_000, 1),
    deepArray(100_000),
    'x'.repeat(5_000_000),
    { x: 'y'.repeat(5_000_000) },
  ];
}

/** Which paths of a body a sweep replaces, and with what. */
export interface Sweep {
  /** The values put at each path. */
  readonly wrong: readonly unknown[];
  /** The longest path replaced (1: the top-level keys only). */
  readonly depth: number;
  /** How many elements of each array are replaced and descended into. */
  readonly arrayItems: number;
  /** How many keys of each object are replaced and descended into. */
  readonly objectKeys: number;
}

/** Every path to depth 6 (the first 3 elements of arrays), each given 12 wrong values. */
export const DEEP_SWEEP: Sweep = {
  wrong: [
    null,
    42,
    -1,
    'x',
    '',
    true,
    [],
    {},
    [null],
    'x'.repeat(100_000),
    nested('a', 20_000, 'x'),
    deepArray(20_000),
  ],
  depth: 6,
  arrayItems: 3,
  objectKeys: Infinity,
};

/** Every path to depth 3 (the first 40 entries of each level), each given 9 wrong values. */
export const SHALLOW_SWEEP: Sweep = {
  wrong: [null, 42, -1, '', 'x', [], {}, true, 'x'.repeat(100_000)],
  depth: 3,
  arrayItems: 40,
  objectKeys: 40,
};

/** SHALLOW_SWEEP without the values -1 and ''. */
export const SHALLOW_SWEEP_WITHOUT_EDGES: Sweep = {
  ...SHALLOW_SWEEP,
  wrong: [null, 42, 'x', [], {}, true, 'x'.repeat(100_000)],
};

type Path = readonly (string | number)[];

/**
 * Copies of body with one wrong value at one path, for every path and wrong value of the
 * sweep (paths depth first, every wrong value at a path before the paths below it). Only
 * the containers along the path are copied; the rest is shared with body.
 */
export function* wrongTypeVariants(
  body: unknown,
  sweep: Sweep,
  depth = sweep.depth,
): Generator<{ readonly path: Path; readonly wrong: number; readonly body: unknown }> {
  if (depth <= 0 || typeof body !== 'object' || body === null) return;
  const entries: (readonly [string | number, unknown])[] = Array.isArray(body)
    ? body.slice(0, sweep.arrayItems).map((v: unknown, i) => [i, v] as const)
    : Object.entries(body).slice(0, sweep.objectKeys);
  for (const [key, value] of entries) {
    const put = (x: unknown): unknown =>
      Array.isArray(body)
        ? Object.assign([...(body as unknown[])], { [key]: x })
        : { ...body, [key]: x };
    for (let wrong = 0; wrong < sweep.wrong.length; wrong++) {
      yield { path: [key], wrong, body: put(sweep.wrong[wrong]) };
    }
    for (const inner of wrongTypeVariants(value, sweep, depth - 1)) {
      yield { path: [key, ...inner.path], wrong: inner.wrong, body: put(inner.body) };
    }
  }
}

/** Every variant of every fixture in the sweep is safe (see expectSafe). */
export function hostileSweep(
  normaliser: Normaliser,
  fixtures: readonly Fixture[],
  sweep: Sweep,
): void {
  for (const { file, body } of fixtures) {
    for (const v of wrongTypeVariants(body, sweep)) {
      expectSafe(
        normaliser,
        v.body,
        CONTEXT,
        `${file} at ${v.path.join('.')}, wrong value ${String(v.wrong)}`,
      );
    }
  }
}
