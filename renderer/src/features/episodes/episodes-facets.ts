// Compare a histogram selection with the rest (console.md C.3, Honeycomb's BubbleUp): each
// facet value's share of the selected episodes against its share of the others in the same
// scope. The rail lists the most over-represented first, so what sets the chosen days apart
// reads at the top.

export interface ComparedValue {
  readonly value: string;
  /** episodes in the selection with this value */
  readonly count: number;
  /** the share in the selection over the share in the rest; Infinity: only in the selection */
  readonly lift: number;
}

/** Below this lift a value is not called over-represented (no badge). */
export const NOTABLE_LIFT = 1.5;

/**
 * `inside`: the selection's counts (its `insideTotal` episodes); `whole`: the counts of the
 * whole scope the selection was cut from (`wholeTotal` episodes, the selection included).
 * Most over-represented first; ties by count, then by value.
 */
export function compareWithRest(
  inside: Readonly<Record<string, number>>,
  insideTotal: number,
  whole: Readonly<Record<string, number>>,
  wholeTotal: number,
): ComparedValue[] {
  const restTotal = Math.max(0, wholeTotal - insideTotal);
  return Object.entries(inside)
    .map(([value, count]) => {
      const rest = Math.max(0, (whole[value] ?? count) - count);
      const shareIn = insideTotal > 0 ? count / insideTotal : 0;
      const shareRest = restTotal > 0 ? rest / restTotal : 0;
      const lift = shareRest === 0 ? (shareIn > 0 ? Infinity : 0) : shareIn / shareRest;
      return { value, count, lift };
    })
    .sort((a, b) => b.lift - a.lift || b.count - a.count || a.value.localeCompare(b.value));
}

/** The badge beside a value: "only here", "×2.4 vs rest", or nothing when not notable. */
export function liftBadge(lift: number): string | null {
  if (lift === Infinity) return 'only here';
  // NaN (no selection to compare) fails this as well as a small lift does.
  if (!(lift >= NOTABLE_LIFT)) return null;
  return `×${lift.toFixed(1)} vs rest`;
}
