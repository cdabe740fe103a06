// The per-day histogram of the selected rows (`histogram=day`): totals, the results the
// console stacks, and the median restore and handover times per day. The medians are taken
// here over every selected row, never by the console from one page of rows.
import type { EpisodeIndex } from './list.index.js';

import type { HistogramDay } from './episodes.wire.js';

/** Arrays one reader reuses between requests (Reused in list.scan.ts). */
interface Reusable {
  take(n: number, zero?: boolean): Int32Array;
}
export interface HistogramScratch {
  readonly restoreValues: Reusable;
  readonly handoverValues: Reusable;
}

const DAY_MS = 86_400_000;
const NONE = -1;

/**
 * One pass over rows that come newest first (the scan's order), so that each day's rows
 * follow each other: counters are locals, flushed at each new day, and a day's times are one
 * stretch of a reused array, where its median is a selection in place. Rows in any other
 * order are sorted first.
 */
export function histogram(
  index: EpisodeIndex,
  rows: Int32Array,
  scratch: HistogramScratch,
): HistogramDay[] {
  const c = index.columns();
  const { dict } = index;
  const failure = dict.kind.find('failure');
  const symptom = dict.kind.find('symptom');
  const proven = dict.confidence.find('proven');
  const mitigated = dict.outcome.find('mitigated');
  const escalated = dict.outcome.find('escalated');
  const takenBack = dict.action.find('taken_back');
  const { tOpen, restore, handover, action } = c;
  const kindCol = c.facet.kind;
  const confidenceCol = c.facet.confidence;
  const outcomeCol = c.facet.outcome;
  const resultCol = c.facet.result;
  const resultNames = dict.result.values;
  const restoreValues = scratch.restoreValues.take(rows.length, false);
  const handoverValues = scratch.handoverValues.take(rows.length, false);

  const out: HistogramDay[] = [];
  let day = Number.NaN;
  let results = new Float64Array(resultNames.length);
  let total = 0;
  let failures = 0;
  let symptoms = 0;
  let provenN = 0;
  let mitigatedN = 0;
  let escalatedN = 0;
  let takenBackN = 0;
  let restoreFrom = 0;
  let restoreEnd = 0;
  let handoverFrom = 0;
  let handoverEnd = 0;
  const flush = () => {
    if (total === 0) return;
    const byResult: Record<string, number> = {};
    results.forEach((n, code) => {
      if (n > 0) byResult[resultNames[code] ?? ''] = n;
    });
    out.push({
      day: new Date(day * DAY_MS).toISOString().slice(0, 10),
      total,
      failures,
      symptoms,
      proven: provenN,
      mitigated: mitigatedN,
      escalated: escalatedN,
      results: byResult,
      taken_back: takenBackN,
      restore_s: {
        median: medianIn(restoreValues.subarray(restoreFrom, restoreEnd)),
        n: restoreEnd - restoreFrom,
      },
      handover_s: {
        median: medianIn(handoverValues.subarray(handoverFrom, handoverEnd)),
        n: handoverEnd - handoverFrom,
      },
    });
  };
  for (let i = 0; i < rows.length; i++) {
    const p = rows[i]!;
    const d = Math.floor(tOpen[p]! / DAY_MS);
    if (d !== day) {
      if (d > day) {
        const newestFirst = rows.slice().sort((a, b) => tOpen[b]! - tOpen[a]!);
        return histogram(index, newestFirst, scratch);
      }
      flush();
      day = d;
      results = new Float64Array(resultNames.length);
      total = failures = symptoms = provenN = mitigatedN = escalatedN = takenBackN = 0;
      restoreFrom = restoreEnd;
      handoverFrom = handoverEnd;
    }
    total += 1;
    const kind = kindCol[p];
    if (kind === failure) failures += 1;
    else if (kind === symptom) symptoms += 1;
    if (confidenceCol[p] === proven) provenN += 1;
    const outcome = outcomeCol[p];
    if (outcome === mitigated) mitigatedN += 1;
    else if (outcome === escalated) escalatedN += 1;
    if (action[p] === takenBack) takenBackN += 1;
    else results[resultCol[p]!]! += 1;
    const r = restore[p]!;
    if (r !== NONE) restoreValues[restoreEnd++] = r;
    const h = handover[p]!;
    if (h !== NONE) handoverValues[handoverEnd++] = h;
  }
  flush();
  return out.reverse();
}

/** The median of `a` (reordered in place), the mean of the middle two when even; null if empty. */
export function medianIn(a: Int32Array): number | null {
  const n = a.length;
  if (n === 0) return null;
  const k = Math.floor((n - 1) / 2);
  const lower = select(a, k);
  if (n % 2 === 1) return lower;
  // After the selection everything right of k is at least a[k]: the next is their minimum.
  let upper = a[k + 1]!;
  for (let i = k + 2; i < n; i++) if (a[i]! < upper) upper = a[i]!;
  return (lower + upper) / 2;
}

/** The k-th smallest of `a` (Hoare's selection, in place): linear on average, no copy. */
function select(a: Int32Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}
