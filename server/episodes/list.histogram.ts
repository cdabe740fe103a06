// The per-day histogram of the selected rows (`histogram=day`): totals, the results the
// console stacks, and the median restore and handover times per day. The medians are taken
// here over every selected row, never by the console from one page of rows.
import type { EpisodeIndex } from './list.index.js';

export interface DayMedian {
  /** seconds; null when no episode of the day has the time */
  median: number | null;
  /** how many episodes of the day have it */
  n: number;
}

export interface HistogramDay {
  day: string;
  total: number;
  failures: number;
  symptoms: number;
  proven: number;
  mitigated: number;
  escalated: number;
  /** counts per result, leaving out the episodes whose action was taken back */
  results: Record<string, number>;
  /** episodes whose action was taken back; with `results` it adds up to `total` */
  taken_back: number;
  restore_s: DayMedian;
  handover_s: DayMedian;
}

/** Arrays one reader reuses between requests (Reused in list.scan.ts). */
interface Reusable {
  take(n: number, zero?: boolean): Int32Array;
}
export interface HistogramScratch {
  readonly slots: Reusable;
  readonly restoreValues: Reusable;
  readonly handoverValues: Reusable;
}

const DAY_MS = 86_400_000;
const NONE = -1;

interface Slot {
  readonly day: HistogramDay;
  readonly results: Float64Array;
  restoreAt: number;
  handoverAt: number;
}

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
  const resultCount = dict.result.values.length;

  // Pass one: counts per day, and each row's day slot for pass two.
  const byDay = new Map<number, number>();
  const slots: Slot[] = [];
  const slotOf = scratch.slots.take(rows.length, false);
  // Rows come newest first, so a day's rows follow each other: the map only at a new day.
  let lastDay = Number.NaN;
  let lastSlot = 0;
  for (let i = 0; i < rows.length; i++) {
    const p = rows[i]!;
    const d = Math.floor(tOpen[p]! / DAY_MS);
    let s = d === lastDay ? lastSlot : byDay.get(d);
    if (s === undefined) {
      s = slots.length;
      byDay.set(d, s);
      slots.push({
        day: {
          day: new Date(d * DAY_MS).toISOString().slice(0, 10),
          total: 0,
          failures: 0,
          symptoms: 0,
          proven: 0,
          mitigated: 0,
          escalated: 0,
          results: {},
          taken_back: 0,
          restore_s: { median: null, n: 0 },
          handover_s: { median: null, n: 0 },
        },
        results: new Float64Array(resultCount),
        restoreAt: 0,
        handoverAt: 0,
      });
    }
    slotOf[i] = s;
    lastDay = d;
    lastSlot = s;
    const slot = slots[s]!;
    const day = slot.day;
    day.total += 1;
    const kind = kindCol[p];
    if (kind === failure) day.failures += 1;
    else if (kind === symptom) day.symptoms += 1;
    if (confidenceCol[p] === proven) day.proven += 1;
    const outcome = outcomeCol[p];
    if (outcome === mitigated) day.mitigated += 1;
    else if (outcome === escalated) day.escalated += 1;
    if (action[p] === takenBack) day.taken_back += 1;
    else slot.results[resultCol[p]!]! += 1;
    if (restore[p] !== NONE) day.restore_s.n += 1;
    if (handover[p] !== NONE) day.handover_s.n += 1;
  }

  // Pass two: each day's times side by side in one array (a counting sort by day), so that
  // a median is a selection inside the day's stretch, with no array per day.
  let restoreEnd = 0;
  let handoverEnd = 0;
  for (const slot of slots) {
    slot.restoreAt = restoreEnd;
    slot.handoverAt = handoverEnd;
    restoreEnd += slot.day.restore_s.n;
    handoverEnd += slot.day.handover_s.n;
  }
  const restoreValues = scratch.restoreValues.take(restoreEnd, false);
  const handoverValues = scratch.handoverValues.take(handoverEnd, false);
  const restoreFill = slots.map((s) => s.restoreAt);
  const handoverFill = slots.map((s) => s.handoverAt);
  for (let i = 0; i < rows.length; i++) {
    const p = rows[i]!;
    const s = slotOf[i]!;
    const r = restore[p]!;
    if (r !== NONE) restoreValues[restoreFill[s]!++] = r;
    const h = handover[p]!;
    if (h !== NONE) handoverValues[handoverFill[s]!++] = h;
  }

  for (const slot of slots) {
    const { day } = slot;
    day.restore_s.median = medianIn(
      restoreValues.subarray(slot.restoreAt, slot.restoreAt + day.restore_s.n),
    );
    day.handover_s.median = medianIn(
      handoverValues.subarray(slot.handoverAt, slot.handoverAt + day.handover_s.n),
    );
    slot.results.forEach((n, code) => {
      if (n > 0) day.results[dict.result.values[code] ?? ''] = n;
    });
  }
  return [...byDay.entries()].sort((a, b) => a[0] - b[0]).map(([, s]) => slots[s]!.day);
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
