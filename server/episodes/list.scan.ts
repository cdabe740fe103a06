// One pass over the index, newest first, that selects the rows, counts every facet with all
// filters but its own, and gathers what the scorecard and the histogram need. A row failing
// exactly one facet filter counts only in that facet; a row failing two counts nowhere.
import { FACETS, VERDICT, type Facet, type IndexColumns, type EpisodeIndex } from './list.index.js';
import type { HistogramDay } from './episodes.wire.js';
import { histogram, type HistogramScratch } from './list.histogram.js';
import type { Selection } from './list.params.js';

/** What the scorecard is computed from: exactly the selected rows. */
export interface ScanStats {
  readonly results: Map<string, number>;
  readonly restore: Tally;
  readonly handover: Tally;
  readonly within90: number;
  /** closed episodes the team judged, and those it agreed with (same or advice) */
  readonly judged: number;
  readonly agreed: number;
  /** the same, of shadow episodes only: the would-be decision scored against the team's */
  readonly shadowJudged: number;
  readonly shadowAgreed: number;
  readonly actions: { ran: number; verified: number; taken_back: number; not_verified: number };
  readonly incidents: number;
  readonly incidentsEndedByService: number;
  /** What minutes_saved may count (scorecard.ts): only work the service did. */
  readonly saved: SavedCounts;
}

export interface SavedCounts {
  /** resolved or restored with no person taking over, not in shadow mode */
  readonly ended: number;
  /**
   * of those, the ones the service's own action restored or resolved (an acting decision,
   * its action verified): the only ones minutes_saved counts
   */
  readonly acted: number;
  /** handed over to a person with the cause proven (not counted: a person still worked it) */
  readonly handedProven: number;
  /** shadow mode with the cause proven: what would have been saved, never counted as saved */
  readonly shadowProven: number;
}

export interface ScanResult {
  /** selected positions, in list order (after sort), before paging */
  readonly picked: Int32Array;
  readonly facets: Record<Facet, Record<string, number>>;
  /** matches before the `latest` cut */
  readonly complete: boolean;
  /** only with scorecard=1 */
  readonly stats: ScanStats | null;
  readonly histogram: HistogramDay[] | null;
}

const NONE = -1;
const MAX_FACET_VALUES = 1000;

/** Results that end an episode without anyone taking it over. */
const ENDED_RESULTS = ['resolved', 'restored', 'cleared'];
/** Results in which the service ended the episode itself (cleared: it went away on its own). */
const SAVED_RESULTS = ['resolved', 'restored'];
/** Decisions in which the service itself acted (a fix, a restore, a mitigation). */
const ACTING_DECISIONS = ['act', 'restore', 'mitigated_first'];

/** Values below this are counted by value; the few above are kept as they are. */
const COUNTED = 1 << 16;

/**
 * A typed array kept from one list request to the next. A request used to allocate its
 * arrays afresh (the picked positions alone are 4 MB over a million rows): memory outside
 * the JavaScript heap, whose growth makes V8 run a full collection of the reader's heap
 * (the index's dictionaries, about 100 MB) every few requests, a pause of 50 to 150 ms
 * inside whichever request met it.
 */
export class Reused<T extends Int32Array | Uint8Array> {
  private readonly make: (n: number) => T;
  private buffer: T;

  constructor(make: (n: number) => T) {
    this.make = make;
    this.buffer = make(0);
  }

  /** The first n elements, zeroed unless `zero` is false (arrays written before read). */
  take(n: number, zero = true): T {
    if (this.buffer.length < n)
      this.buffer = this.make(Math.max(n, Math.ceil(this.buffer.length * 1.25)));
    const view = this.buffer.subarray(0, n) as T;
    if (zero) view.fill(0);
    return view;
  }
}

/** What one reader reuses between requests; its arrays are valid until its next request. */
export interface ScanScratch extends HistogramScratch {
  readonly picked: Reused<Int32Array>;
  readonly grouped: Reused<Int32Array>;
  readonly mask: Reused<Uint8Array>;
  readonly incidents: Reused<Uint8Array>;
  readonly seen: Reused<Uint8Array>;
  readonly restore: Reused<Int32Array>;
  readonly handover: Reused<Int32Array>;
}

export function createScanScratch(): ScanScratch {
  const ints = (): Reused<Int32Array> => new Reused((n) => new Int32Array(n));
  const bytes = (): Reused<Uint8Array> => new Reused((n) => new Uint8Array(n));
  return {
    picked: ints(),
    grouped: ints(),
    mask: bytes(),
    incidents: bytes(),
    seen: bytes(),
    restore: ints(),
    handover: ints(),
    restoreValues: ints(),
    handoverValues: ints(),
  };
}

/**
 * Whole seconds, counted by value: the median is a walk over the counts, with no copy of a
 * million values to select in (which was a fifth of a whole-year scorecard).
 */
export class Tally {
  /** Values outside [0, COUNTED): rare (over 18 hours, or negative). */
  readonly others: number[] = [];
  length = 0;

  readonly counts: Int32Array;

  /** `counts`: COUNTED zeroed slots (a reused array), or a new one. */
  constructor(counts: Int32Array = new Int32Array(COUNTED)) {
    this.counts = counts;
  }

  add(v: number): void {
    this.length += 1;
    if (v >= 0 && v < COUNTED) this.counts[v]! += 1;
    else this.others.push(v);
  }

  /** The k-th smallest value (0-based), k < length. */
  at(k: number): number {
    const others = Float64Array.from(this.others).sort();
    let below = 0;
    while (below < others.length && others[below]! < 0) below++;
    if (k < below) return others[k]!;
    let left = k - below;
    for (let v = 0; v < COUNTED; v++) {
      const n = this.counts[v]!;
      if (left < n) return v;
      left -= n;
    }
    return others[below + left]!;
  }
}

/** The median of the tallied values, or null when there are none. */
export function median(t: Tally): number | null {
  const n = t.length;
  if (n === 0) return null;
  if (n % 2 === 1) return t.at((n - 1) / 2);
  return (t.at(n / 2 - 1) + t.at(n / 2)) / 2;
}

export function scan(
  index: EpisodeIndex,
  sel: Selection,
  only: Uint8Array | null,
  scratch: ScanScratch = createScanScratch(),
): ScanResult {
  const c: IndexColumns = index.columns();
  const { dict } = index;
  const limitRows = sel.latest ?? Number.POSITIVE_INFINITY;

  // Filters: a lookup per active facet, by code.
  const active: { bit: number; codes: Uint32Array; allowed: Uint8Array }[] = [];
  FACETS.forEach((f, bit) => {
    const wanted = sel.facets[f];
    if (wanted === undefined) return;
    const allowed = new Uint8Array(dict[f].values.length);
    for (const v of wanted) {
      const code = dict[f].find(v);
      if (code >= 0) allowed[code] = 1;
    }
    active.push({ bit, codes: c.facet[f], allowed });
  });
  const counts = FACETS.map((f) => new Int32Array(dict[f].values.length));
  const population = new Float64Array(FACETS.length);
  const wantConfirmed = sel.confirmed === null ? -1 : sel.confirmed ? 1 : 0;
  // Columns and counters fetched once: a look-up by name per row and facet was most of the
  // scan's time over a million rows.
  const cols = FACETS.map((f) => c.facet[f]);
  const [s0, s1, s2, s3, s4, s5] = cols as [
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
    Uint32Array,
  ];
  const [n0, n1, n2, n3, n4, n5] = counts as [
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
  ];
  const bounded = sel.latest !== null;
  const { order, tOpen, confirmed } = c;

  const windowed = sel.from !== Number.NEGATIVE_INFINITY || sel.to !== Number.POSITIVE_INFINITY;
  const picked = scratch.picked.take(Math.min(c.size, limitRows), false);
  let matched = 0;
  for (let i = 0; i < c.size; i++) {
    const p = order[i]!;
    // The text mask first, and the time only within a window: over a million rows, every
    // column read is a pass over its memory (the time's is 8 MB, the mask's 1 MB).
    if (only !== null && only[p] !== 1) continue;
    if (windowed) {
      const t = tOpen[p]!;
      if (t >= sel.to) continue;
      if (t < sel.from) break; // newest first: the rest are older still
    }
    if (wantConfirmed !== -1 && confirmed[p] !== wantConfirmed) continue;
    let failed = NONE;
    let failures = 0;
    for (const a of active) {
      if (a.allowed[a.codes[p]!] !== 1) {
        failed = a.bit;
        if (++failures > 1) break;
      }
    }
    if (failures > 1) continue;
    if (failures === 1) {
      if (!bounded || ++population[failed]! <= limitRows) counts[failed]![cols[failed]![p]!]! += 1;
      continue;
    }
    matched += 1;
    if (!bounded) {
      picked[matched - 1] = p;
      n0[s0[p]!]! += 1;
      n1[s1[p]!]! += 1;
      n2[s2[p]!]! += 1;
      n3[s3[p]!]! += 1;
      n4[s4[p]!]! += 1;
      n5[s5[p]!]! += 1;
      continue;
    }
    if (matched <= limitRows) picked[matched - 1] = p;
    for (let k = 0; k < FACETS.length; k++) {
      if (++population[k]! <= limitRows) counts[k]![cols[k]![p]!]! += 1;
    }
    // With `latest`, stop once every count holds its newest N.
    if (matched > limitRows && population.every((n) => n > limitRows)) break;
  }
  const selected = picked.subarray(0, Math.min(matched, limitRows));

  const facets = {} as Record<Facet, Record<string, number>>;
  FACETS.forEach((f, k) => {
    const entries: [string, number][] = [];
    counts[k]!.forEach((n, code) => {
      if (n > 0 && code !== 0) entries.push([dict[f].values[code]!, n]);
    });
    entries.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const shown = Object.fromEntries(entries.slice(0, MAX_FACET_VALUES));
    // A value the filter names stays visible at 0, so that it can be unticked.
    for (const v of sel.facets[f] ?? []) shown[v] ??= 0;
    facets[f] = shown;
  });

  return {
    picked: sortPicked(index, selected, sel),
    facets,
    complete: matched <= limitRows,
    stats: sel.scorecard ? stats(index, selected, scratch) : null,
    histogram: sel.histogram ? histogram(index, selected, scratch) : null,
  };
}

/** 1 at the code of each of `names` in a dictionary (a name it never saw is left out). */
function flagsOf(d: { values: readonly string[]; find(v: string): number }, names: string[]) {
  const flags = new Uint8Array(d.values.length);
  for (const n of names) {
    const code = d.find(n);
    if (code >= 0) flags[code] = 1;
  }
  return flags;
}

function stats(index: EpisodeIndex, rows: Int32Array, scratch: ScanScratch): ScanStats {
  const c = index.columns();
  const { dict } = index;
  const resultCol = c.facet.result;
  const {
    restore: restoreCol,
    handover: handoverCol,
    action: actionCol,
    incident: incidentCol,
    verdict: verdictCol,
  } = c;
  const shadowCode = dict.decision.find('shadow');
  let judged = 0;
  let agreed = 0;
  let shadowJudged = 0;
  let shadowAgreed = 0;
  const results = new Float64Array(dict.result.values.length);
  const restore = new Tally(scratch.restore.take(COUNTED));
  const handover = new Tally(scratch.handover.take(COUNTED));
  let within90 = 0;
  const verifiedCode = dict.action.find('verified');
  const takenBackCode = dict.action.find('taken_back');
  const notVerifiedCode = dict.action.find('not_verified');
  let ran = 0;
  let verified = 0;
  let takenBack = 0;
  let notVerified = 0;
  const decisionCol = c.facet.decision;
  const endedCodes = flagsOf(dict.result, ENDED_RESULTS);
  // Per incident: 1 = ended by the service so far, 2 = a person was needed.
  const incidentState = scratch.incidents.take(c.maxIncident + 1);
  let incidents = 0;
  let endedByService = 0;
  const provenCode = dict.confidence.find('proven');
  const confidenceCol = c.facet.confidence;
  const savedCodes = flagsOf(dict.result, SAVED_RESULTS);
  const shadowResult = dict.result.find('shadow');
  const actingCodes = flagsOf(dict.decision, ACTING_DECISIONS);
  let savedEnded = 0;
  let savedActed = 0;
  let handedProven = 0;
  let shadowProven = 0;
  // Plain counters and columns held in locals: this loop runs over every selected row.
  for (let i = 0; i < rows.length; i++) {
    const p = rows[i]!;
    const result = resultCol[p]!;
    results[result]! += 1;
    const v = verdictCol[p]!;
    if (v !== VERDICT.None) {
      const ok = v === VERDICT.Agreed ? 1 : 0;
      judged += 1;
      agreed += ok;
      if (decisionCol[p] === shadowCode) {
        shadowJudged += 1;
        shadowAgreed += ok;
      }
    }
    const r = restoreCol[p]!;
    if (r !== NONE) restore.add(r);
    const h = handoverCol[p]!;
    if (h !== NONE) {
      handover.add(h);
      if (h <= 90) within90 += 1;
    }
    const a = actionCol[p]!;
    if (a !== 0) ran += 1;
    if (a === verifiedCode) verified += 1;
    else if (a === takenBackCode) takenBack += 1;
    else if (a === notVerifiedCode) notVerified += 1;
    const proven = confidenceCol[p] === provenCode;
    if (h === NONE && savedCodes[result] === 1 && decisionCol[p] !== shadowCode) {
      savedEnded += 1;
      if (a === verifiedCode && actingCodes[decisionCol[p]!] === 1) savedActed += 1;
    } else if (h !== NONE && proven) handedProven += 1;
    else if (result === shadowResult && proven) shadowProven += 1;
    const byService = h === NONE && endedCodes[result] === 1;
    const inc = incidentCol[p]!;
    if (inc === NONE) {
      incidents += 1;
      if (byService) endedByService += 1;
    } else if (incidentState[inc] === 0) {
      incidents += 1;
      incidentState[inc] = byService ? 1 : 2;
      if (byService) endedByService += 1;
    } else if (incidentState[inc] === 1 && !byService) {
      incidentState[inc] = 2;
      endedByService -= 1;
    }
  }
  const byResult = new Map<string, number>();
  results.forEach((n, code) => {
    if (n > 0) byResult.set(dict.result.values[code]!, n);
  });
  return {
    results: byResult,
    restore,
    handover,
    within90,
    judged,
    agreed,
    shadowJudged,
    shadowAgreed,
    actions: { ran, verified, taken_back: takenBack, not_verified: notVerified },
    incidents,
    incidentsEndedByService: endedByService,
    saved: { ended: savedEnded, acted: savedActed, handedProven, shadowProven },
  };
}

/** The selected rows in the order asked; they arrive newest first. */
function sortPicked(index: EpisodeIndex, rows: Int32Array, sel: Selection): Int32Array {
  const { field, descending } = sel.sort;
  if (field === 't_open') return descending ? rows : rows.slice().reverse();
  const c = index.columns();
  const key = (p: number): number | string => {
    switch (field) {
      case 't_close':
        return c.tClose[p]!;
      case 'duration':
        return c.tClose[p]! - c.tOpen[p]!;
      case 'handover_s':
        return c.handover[p]!;
      default:
        return index.dict[field].values[c.facet[field][p]!]!;
    }
  };
  const sign = descending ? -1 : 1;
  const keyed = Array.from(rows, (p, i) => ({ p, i, k: key(p) }));
  // Ties keep the newest-first order.
  keyed.sort((a, b) => (a.k < b.k ? -sign : a.k > b.k ? sign : a.i - b.i));
  return Int32Array.from(keyed, (e) => e.p);
}
