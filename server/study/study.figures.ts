// The pure arithmetic of a study: the normal range of a reading (its baseline), and which
// readings of two services move together or lead one another (lagged correlation). Both are
// descriptions of the past; neither is evidence of a cause (docs/study.md).

/** A reading's normal range over the study's window. */
export interface Baseline {
  /** how many points it was read from */
  readonly n: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  /** 5th, 50th and 95th percentiles: the normal range is p5 to p95 */
  readonly p5: number;
  readonly p50: number;
  readonly p95: number;
}

const round = (n: number, digits = 4): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/** The q-th quantile (0 to 1) of sorted values, interpolated linearly between neighbours. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('quantile of no values');
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? a;
  return a + (b - a) * (at - lo);
}

/** The baseline of the finite values; null when there are none. */
export function baselineOf(values: readonly number[]): Baseline | null {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return null;
  const sorted = [...finite].sort((a, b) => a - b);
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    n: sorted.length,
    min: round(sorted[0] ?? 0),
    max: round(sorted[sorted.length - 1] ?? 0),
    mean: round(sum / sorted.length),
    p5: round(quantile(sorted, 0.05)),
    p50: round(quantile(sorted, 0.5)),
    p95: round(quantile(sorted, 0.95)),
  };
}

/**
 * Pearson's r over the positions where both lists have a finite value (a missing point drops
 * only its pair), with how many pairs it used; null when either side does not vary or fewer
 * than three pairs remain.
 */
export function pearson(
  x: readonly number[],
  y: readonly number[],
): { r: number; n: number } | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const a = x[i];
    const b = y[i];
    if (a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b)) {
      xs.push(a);
      ys.push(b);
    }
  }
  const n = xs.length;
  if (n < 3) return null;
  const mx = xs.reduce((s, v) => s + v, 0) / n;
  const my = ys.reduce((s, v) => s + v, 0) / n;
  let cov = 0;
  let vx = 0;
  let vy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - mx;
    const dy = (ys[i] ?? 0) - my;
    cov += dx * dy;
    vx += dx * dx;
    vy += dy * dy;
  }
  if (vx === 0 || vy === 0) return null;
  return { r: cov / Math.sqrt(vx * vy), n };
}

/** The strongest lagged correlation of two aligned series. */
export interface Lagged {
  /** steps by which `a` leads `b` (negative: `b` leads `a`; 0: together) */
  readonly lag: number;
  /** Pearson's r at that lag */
  readonly r: number;
  /** pairs it was computed over */
  readonly pairs: number;
}

/** Fewest pairs a correlation is computed over: fewer say nothing. */
export const MIN_PAIRS = 8;

/**
 * The lag from -tau to tau (in steps) at which a[t] and b[t + lag] correlate most strongly
 * (largest |r|; the smaller |lag| on a tie, so moving together wins over leading). Positive
 * lag: a moves first. Null when no lag has MIN_PAIRS pairs of varying values.
 */
export function laggedCorrelation(
  a: readonly number[],
  b: readonly number[],
  tau: number,
): Lagged | null {
  const n = Math.min(a.length, b.length);
  let best: Lagged | null = null;
  // A lag past n - MIN_PAIRS leaves too few pairs: a large SVC_CAUSAL_TAU costs nothing more.
  const most = Math.min(tau, n - MIN_PAIRS);
  for (let abs = 0; abs <= most; abs++) {
    for (const lag of abs === 0 ? [0] : [abs, -abs]) {
      const span = n - Math.abs(lag);
      if (span < MIN_PAIRS) continue;
      const xs = lag >= 0 ? a.slice(0, span) : a.slice(-lag, -lag + span);
      const ys = lag >= 0 ? b.slice(lag, lag + span) : b.slice(0, span);
      const found = pearson(xs, ys);
      if (found === null || found.n < MIN_PAIRS) continue;
      if (best === null || Math.abs(found.r) > Math.abs(best.r) + 1e-9)
        best = { lag, r: found.r, pairs: found.n };
    }
  }
  return best === null ? null : { ...best, r: round(best.r) };
}

/** |r| from which two readings are said to move together. */
export const RELATION_MIN_STRENGTH = 0.7;

/** One reading's series: its service and name, values aligned on the study's steps. */
export interface Series {
  readonly service: string;
  readonly reading: string;
  readonly values: readonly number[];
}

export interface Relation {
  /** as an estate suggestion: `from` depends on `to` (the follower on the leader) */
  readonly from: string;
  readonly to: string;
  /** steps by which `to` leads `from` (0: they move together, in no order) */
  readonly lag: number;
  /** |r|, or the causal service's strength */
  readonly strength: number;
  /** 0 to 1, for ordering suggestions */
  readonly score: number;
  /** which readings, e.g. `app cpu → postgresql cpu` */
  readonly readings: string;
  readonly method: 'lagged_correlation' | 'causal_service';
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/**
 * Relations between services from their readings: for each pair of readings of two different
 * services, the strongest lagged correlation within tau steps; a pair of services keeps its
 * strongest one, when |r| reaches RELATION_MIN_STRENGTH. The leader is depended on (`to`);
 * with lag 0 the names' order decides and the lag says they move together. Score: |r|,
 * lowered by a fifth when there is no order (moving together says less than leading).
 */
export function correlate(series: readonly Series[], tau: number): Relation[] {
  const steps = correlateSteps(series, tau);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** Most relations one study keeps (the strongest): the ledger event stays small. */
export const MAX_RELATIONS = 500;

/**
 * `correlate` one reading at a time: it yields after each reading's pairs, so a caller on the
 * event loop can let other work run (and stop) between them; the relations come back at the
 * end, the strongest MAX_RELATIONS of them.
 */
export function* correlateSteps(
  series: readonly Series[],
  tau: number,
): Generator<void, Relation[], void> {
  const best = new Map<string, Relation>();
  for (let i = 0; i < series.length; i++) {
    if (i > 0) yield;
    for (let j = i + 1; j < series.length; j++) {
      const a = series[i];
      const b = series[j];
      if (a === undefined || b === undefined || a.service === b.service) continue;
      const found = laggedCorrelation(a.values, b.values, tau);
      if (found === null || Math.abs(found.r) < RELATION_MIN_STRENGTH) continue;
      const strength = round(Math.abs(found.r), 2);
      // Positive lag: a leads, so b depends on a.
      const [lead, follow] = found.lag > 0 ? [a, b] : found.lag < 0 ? [b, a] : [a, b];
      const together = found.lag === 0;
      const [from, to] = together ? (a.service < b.service ? [a, b] : [b, a]) : [follow, lead];
      const relation: Relation = {
        from: from.service,
        to: to.service,
        lag: Math.abs(found.lag),
        strength,
        score: round(together ? strength * 0.8 : strength, 2),
        readings: together
          ? `${from.service} ${from.reading} with ${to.service} ${to.reading}`
          : `${lead.service} ${lead.reading} → ${follow.service} ${follow.reading}`,
        method: 'lagged_correlation',
      };
      const key = pairKey(a.service, b.service);
      const before = best.get(key);
      if (before === undefined || relation.score > before.score) best.set(key, relation);
    }
  }
  return [...best.values()]
    .sort((x, y) => y.score - x.score || x.from.localeCompare(y.from) || x.to.localeCompare(y.to))
    .slice(0, MAX_RELATIONS);
}

/**
 * Aligns a range answer's points on the study's steps: the value at each step from start to
 * end (NaN where the answer has none), so two readings compare point for point.
 */
export function align(
  points: readonly (readonly [number, number])[],
  startS: number,
  endS: number,
  stepS: number,
): number[] {
  const steps = Math.floor((endS - startS) / stepS) + 1;
  const out: number[] = new Array<number>(steps).fill(Number.NaN);
  for (const [t, v] of points) {
    const i = Math.round((t - startS) / stepS);
    if (i >= 0 && i < steps) out[i] = v;
  }
  return out;
}
