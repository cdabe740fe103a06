// The closed episodes as columns in memory, for the list's filters, facets, scorecard and
// histogram: one pass over typed arrays answers what would take a dozen GROUP BY scans of a
// million rows in SQL. It is a cache of the episodes table, never a source: every read first
// catches up on rows changed after the seq it holds (an indexed query), so it always shows
// what is committed.
import type { Database } from 'better-sqlite3';

/** Strings of a column as small integer codes; code 0 is the empty value. */
export class Dictionary {
  readonly values: string[] = [''];
  private readonly codes = new Map<string, number>([['', 0]]);

  code(value: string | null): number {
    const v = value ?? '';
    let c = this.codes.get(v);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(v);
      this.codes.set(v, c);
    }
    return c;
  }

  /** The code of a value, or -1 when no row ever had it. */
  find(value: string): number {
    return this.codes.get(value) ?? -1;
  }
}

export const FACETS = ['service', 'decision', 'outcome', 'confidence', 'kind', 'result'] as const;
export type Facet = (typeof FACETS)[number];

type Row = [
  rowid: number,
  t_open: string,
  t_close: string | null,
  service: string,
  decision: string | null,
  outcome: string | null,
  result: string | null,
  kind: string,
  confidence: string,
  action: string,
  confirmed: number,
  handover_s: number | null,
  restore_s: number | null,
  incident_id: string | null,
  last_seq: number,
  verdict: string | null,
];

/** The team's verdict as the scorecard counts it: not judged, agreed (same, advice), other. */
export const VERDICT = { None: 0, Agreed: 1, Other: 2 } as const;
const verdictCode = (v: string | null): number =>
  v === 'same' || v === 'advice' ? VERDICT.Agreed : v === 'other' ? VERDICT.Other : VERDICT.None;

const NONE = -1;
/** Above this many new rows in one catch-up, sort the order instead of inserting each. */
const BULK = 256;

export function createEpisodeIndex(db: Database) {
  const changed = db
    .prepare<[number], Row>(
      `SELECT rowid, t_open, t_close, service, decision, outcome, result, kind,
         confidence, action, confirmed <> '[]', handover_s, restore_s, incident_id, last_seq,
         verdict
       FROM episodes WHERE status = 'closed' AND last_seq > ?`,
    )
    .raw();

  const dict: Record<Facet | 'action', Dictionary> = {
    service: new Dictionary(),
    decision: new Dictionary(),
    outcome: new Dictionary(),
    confidence: new Dictionary(),
    kind: new Dictionary(),
    result: new Dictionary(),
    action: new Dictionary(),
  };
  const incidents = new Dictionary();
  let capacity = 0;
  let size = 0;
  let loadedSeq = 0;
  let rowids = new Float64Array(0);
  let tOpen = new Float64Array(0);
  let tClose = new Float64Array(0);
  let handover = new Int32Array(0);
  let restore = new Int32Array(0);
  let incident = new Int32Array(0);
  let confirmed = new Uint8Array(0);
  let action = new Uint16Array(0);
  let verdict = new Uint8Array(0);
  const facet = {} as Record<Facet, Uint32Array>;
  for (const f of FACETS) facet[f] = new Uint32Array(0);
  /** Positions by t_open, newest first (ties: higher rowid first). */
  let order = new Int32Array(0);
  /** Position of a rowid, or NONE. */
  let positionOf = new Int32Array(0);
  let maxIncident = 0;

  function grow<T extends Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array>(
    a: T,
    n: number,
  ): T {
    const b = new (a.constructor as new (n: number) => T)(n);
    b.set(a);
    return b;
  }

  function ensure(n: number): void {
    if (n <= capacity) return;
    capacity = Math.max(n, capacity * 2, 1024);
    rowids = grow(rowids, capacity);
    tOpen = grow(tOpen, capacity);
    tClose = grow(tClose, capacity);
    handover = grow(handover, capacity);
    restore = grow(restore, capacity);
    incident = grow(incident, capacity);
    confirmed = grow(confirmed, capacity);
    action = grow(action, capacity);
    verdict = grow(verdict, capacity);
    for (const f of FACETS) facet[f] = grow(facet[f], capacity);
    order = grow(order, capacity);
  }

  function placeOf(rowid: number): number {
    return rowid < positionOf.length ? (positionOf[rowid] ?? NONE) : NONE;
  }

  /** Where a new position goes in `order`: after every newer (or equal and higher rowid). */
  function orderSlot(t: number, rowid: number, known: number): number {
    let lo = 0;
    let hi = known;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const p = order[mid]!;
      const newer = tOpen[p]! > t || (tOpen[p] === t && rowids[p]! > rowid);
      if (newer) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Store a row; returns the position of a row not seen before, else NONE. */
  function put(r: Row): number {
    const [rowid, open, close, service, decision, outcome, result, kind, conf] = r;
    let p = placeOf(rowid);
    const fresh = p === NONE;
    if (fresh) {
      p = size;
      ensure(size + 1);
      if (rowid >= positionOf.length) {
        const bigger = new Int32Array(Math.max(rowid + 1, positionOf.length * 2, 1024)).fill(NONE);
        bigger.set(positionOf);
        positionOf = bigger;
      }
      positionOf[rowid] = p;
      rowids[p] = rowid;
      tOpen[p] = Date.parse(open);
    }
    tClose[p] = close === null ? Number.NaN : Date.parse(close);
    facet.service[p] = dict.service.code(service);
    facet.decision[p] = dict.decision.code(decision);
    facet.outcome[p] = dict.outcome.code(outcome);
    facet.result[p] = dict.result.code(result);
    facet.kind[p] = dict.kind.code(kind);
    facet.confidence[p] = dict.confidence.code(conf);
    action[p] = dict.action.code(r[9]);
    confirmed[p] = r[10] ? 1 : 0;
    verdict[p] = verdictCode(r[15]);
    handover[p] = r[11] ?? NONE;
    restore[p] = r[12] ?? NONE;
    // Episodes without an incident (recorded before incidents existed) stand alone; the
    // others group by a small code of their incident id (the incidents table is not ours).
    const inc = r[13] === null ? NONE : incidents.code(r[13]);
    incident[p] = inc;
    if (inc > maxIncident) maxIncident = inc;
    if (!fresh) return NONE;
    size += 1;
    return p;
  }

  function insertInOrder(p: number, known: number): void {
    const slot = orderSlot(tOpen[p]!, rowids[p]!, known);
    order.copyWithin(slot + 1, slot, known);
    order[slot] = p;
  }

  /** After a bulk load: sort every position, rather than shifting the array per row. */
  function sortOrder(): void {
    for (let i = 0; i < size; i++) order[i] = i;
    order.subarray(0, size).sort((a, b) => tOpen[b]! - tOpen[a]! || rowids[b]! - rowids[a]!);
  }

  return {
    dict,
    /** Catch up on every closed episode changed since the last call. */
    refresh(): void {
      let seq = loadedSeq;
      const known = size;
      const fresh: number[] = [];
      for (const r of changed.iterate(loadedSeq)) {
        const p = put(r);
        if (p !== NONE && fresh.length <= BULK) fresh.push(p);
        if (r[14] > seq) seq = r[14];
      }
      loadedSeq = seq;
      if (size - known > BULK) sortOrder();
      else fresh.forEach((p, i) => insertInOrder(p, known + i));
    },
    /** The columns as they are now; valid until the next refresh. */
    columns() {
      return {
        size,
        order,
        rowids,
        tOpen,
        tClose,
        handover,
        restore,
        incident,
        confirmed,
        action,
        verdict,
        facet,
        maxIncident,
      };
    },
    positionOf: placeOf,
  };
}
export type EpisodeIndex = ReturnType<typeof createEpisodeIndex>;
export type IndexColumns = ReturnType<EpisodeIndex['columns']>;
