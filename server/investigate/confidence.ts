// Confidence from findings, by fixed rules (docs/investigation.md, "Confidence"):
//   proven     a proving finding and no refuting one
//   linked     proven on a dependency, and this episode's alerts match the cause's downstream
//   suspected  supporting findings, none proving (and none refuting)
//   disputed   findings for (proving or supporting) and against
//   cleared    a refuting finding and none for
//   unproven   nothing read that bears on the cause
// Unreadable findings bear on nothing. Pure: no clock, no I/O.
import { globMatches } from './match.js';
import type { Confidence } from './types.js';

export interface Evidence {
  readonly proving: number;
  readonly supporting: number;
  readonly refuting: number;
}

/** The confidence of a cause on the service its findings were read for. */
export function confidenceOf(e: Evidence): Exclude<Confidence, 'linked'> {
  const forIt = e.proving + e.supporting;
  if (e.proving > 0 && e.refuting === 0) return 'proven';
  if (forIt > 0 && e.refuting > 0) return 'disputed';
  if (e.supporting > 0) return 'suspected';
  if (e.refuting > 0) return 'cleared';
  return 'unproven';
}

/**
 * A cause proven on a dependency is `linked` for this episode when one of the episode's
 * alerts matches one of the cause's downstream globs; otherwise it does not explain it.
 */
export function isLinked(
  onDependency: Exclude<Confidence, 'linked'>,
  alerts: readonly string[],
  downstream: readonly string[],
): boolean {
  return onDependency === 'proven' && alerts.some((a) => downstream.some((g) => globMatches(g, a)));
}

/** Best first: proven, linked, suspected, disputed, unproven, cleared. */
export const CONFIDENCE_ORDER: readonly Confidence[] = [
  'proven',
  'linked',
  'suspected',
  'disputed',
  'unproven',
  'cleared',
];

export const confidenceRank = (c: Confidence): number => CONFIDENCE_ORDER.indexOf(c);

/** A cause named with enough evidence to act or link on: proven here, or linked. */
export const decisive = (h: { readonly confidence: Confidence }): boolean =>
  h.confidence === 'proven' || h.confidence === 'linked';
