// What labels say about the diagnoses, computed from the labels alone. Pure.
//   - Precision of a cause (or pack): of the labelled episodes it led at proven, linked or
//     suspected, the share the label called right. Suspected counts so that a demoted cause,
//     held at suspected, can earn its way back.
//   - Calibration: per confidence level of the leading cause, how often it was right.
//   - Demotion: a cause whose last DEMOTION_WINDOW labels number at least DEMOTION_MIN_LABELS
//     and are right less than DEMOTION_BAR of the time may not reach proven on its own
//     evidence until that share recovers.
//   - A learned pattern: the same (service, cause, fix, alerts) labelled right at least
//     PATTERN_MIN_SUPPORT times at proven or linked, and never labelled wrong.
import { createHash } from 'node:crypto';

export const DEMOTION_BAR = 0.8;
export const DEMOTION_MIN_LABELS = 5;
export const DEMOTION_WINDOW = 50;
export const PATTERN_MIN_SUPPORT = 3;

export const CONFIDENCE_LEVELS = [
  'proven',
  'linked',
  'suspected',
  'disputed',
  'cleared',
  'unproven',
] as const;

/** The confidences at which a cause led the diagnosis: its labels count for its precision. */
const LED = new Set(['proven', 'linked', 'suspected']);
/** The confidences at which the service claimed the cause: only these make patterns. */
const CLAIMED = new Set(['proven', 'linked']);

export interface Label {
  readonly episode_id: string;
  readonly seq: number;
  readonly correct: boolean;
  readonly source: string;
  readonly cause: string | null;
  readonly pack: string | null;
  readonly confidence: string;
  readonly service: string;
  readonly alerts: readonly string[];
  readonly fix: string | null;
  readonly by: string;
  readonly at: string;
}

export interface Precision {
  readonly name: string;
  readonly labels: number;
  readonly correct: number;
  readonly precision: number;
}

const share = (correct: number, of: number): number => Math.round((correct / of) * 1000) / 1000;

/** Precision per cause or per pack, most labelled first. */
export function precisionBy(labels: readonly Label[], key: 'cause' | 'pack'): Precision[] {
  const tally = new Map<string, { labels: number; correct: number }>();
  for (const l of labels) {
    const name = l[key];
    if (name === null || !LED.has(l.confidence)) continue;
    const t = tally.get(name) ?? { labels: 0, correct: 0 };
    t.labels += 1;
    if (l.correct) t.correct += 1;
    tally.set(name, t);
  }
  return [...tally]
    .map(([name, t]) => ({ name, ...t, precision: share(t.correct, t.labels) }))
    .sort((a, b) => b.labels - a.labels || a.name.localeCompare(b.name));
}

export interface Calibration {
  readonly confidence: string;
  readonly labels: number;
  readonly correct: number;
  /** null: no label at this level yet */
  readonly share: number | null;
}

export function calibrationOf(labels: readonly Label[]): Calibration[] {
  return CONFIDENCE_LEVELS.map((confidence) => {
    const at = labels.filter((l) => l.confidence === confidence);
    const correct = at.filter((l) => l.correct).length;
    return {
      confidence,
      labels: at.length,
      correct,
      share: at.length === 0 ? null : share(correct, at.length),
    };
  });
}

/** A cause's standing over its labels newest first (at most DEMOTION_WINDOW are read). */
export function standingOf(newestFirst: readonly Label[]): Precision | null {
  const led = newestFirst.filter((l) => LED.has(l.confidence)).slice(0, DEMOTION_WINDOW);
  const cause = led[0]?.cause ?? null;
  if (cause === null) return null;
  const correct = led.filter((l) => l.correct).length;
  return { name: cause, labels: led.length, correct, precision: share(correct, led.length) };
}

/** Whether a cause is demoted, from its labels newest first; null: it is not. */
export function demotionOf(newestFirst: readonly Label[]): Precision | null {
  const s = standingOf(newestFirst);
  return s !== null && s.labels >= DEMOTION_MIN_LABELS && s.precision < DEMOTION_BAR ? s : null;
}

/** Why a demoted cause is held at suspected, as the hypothesis says it. */
export function demotionWhy(d: Precision): string {
  return `${d.name} is demoted: ${String(d.correct)} of its last ${String(d.labels)} labelled diagnoses were right, below ${String(DEMOTION_BAR * 100)}%`;
}

export interface PatternKey {
  readonly pattern_id: string;
  readonly service: string;
  readonly cause: string;
  readonly fix: string | null;
  readonly alerts: readonly string[];
}

/** The pattern a label belongs to; null: a label that cannot make one (no claimed cause). */
export function patternOf(label: Label): PatternKey | null {
  if (label.cause === null || !CLAIMED.has(label.confidence)) return null;
  const alerts = [...new Set(label.alerts)].sort();
  const key = JSON.stringify([label.service, label.cause, label.fix, alerts]);
  const pattern_id = `lp-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
  return { pattern_id, service: label.service, cause: label.cause, fix: label.fix, alerts };
}

/** How many labels of one pattern say right and wrong. */
export function supportOf(
  key: PatternKey,
  labels: readonly Label[],
): { support: number; wrong: number } {
  let support = 0;
  let wrong = 0;
  for (const l of labels) {
    if (patternOf(l)?.pattern_id !== key.pattern_id) continue;
    if (l.correct) support += 1;
    else wrong += 1;
  }
  return { support, wrong };
}
