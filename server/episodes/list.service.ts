// GET /v1/episodes: closed episodes with every filter of the specification, facet counts, the
// scorecard and the per-day histogram, plus the running episodes and the live seq. The work
// over the index runs on a read worker (createListReader, in server/compose/list-worker.ts);
// the event loop only checks the parameters and merges the answer with the running episodes.
import type { Clock } from '../shared/clock.js';
import type { EpisodeIndex } from './list.index.js';
import { readSelection, type ListQuery, type Selection } from './list.params.js';
import type { EpisodeListStore } from './list.query.js';
import { createScanScratch, scan } from './list.scan.js';
import { scorecard, type ImpactMinutes } from './scorecard.js';
import type { RunningEpisode } from './episodes.schemas.js';
import type {
  EpisodeGroupRow,
  EpisodeListBody,
  EpisodeListRow,
  HistogramDay,
  Scorecard,
} from './episodes.wire.js';

/** What the event loop sends a read worker for one list request. */
export interface ListJob {
  readonly sel: Selection;
  readonly nowMs: number;
  /** The ledger seq committed when the request arrived: the answer shows at least that. */
  readonly minSeq: number;
  readonly impact: ImpactMinutes | null;
}

/** What the worker answers: the list without the running episodes. */
export interface ListPage {
  readonly episodes: EpisodeListRow[] | EpisodeGroupRow[];
  readonly total: number;
  readonly facets: Record<string, Record<string, number>>;
  readonly complete: boolean;
  readonly scorecard: Scorecard | null;
  readonly histogram: HistogramDay[] | null;
  /** The ledger seq the answer was read at (at least the job's minSeq). */
  readonly seq: number;
}

interface ReaderDeps {
  readonly index: EpisodeIndex;
  readonly store: EpisodeListStore;
  /** The last committed ledger seq, as this connection sees it. */
  readonly headSeq: () => number;
}

interface Deps {
  /** Runs a job on a read worker (createListReader's read there, in one read snapshot). */
  readonly read: (job: ListJob) => Promise<ListPage>;
  readonly clock: Clock;
  /** The caller's impact figures, or null when none is set. */
  readonly impact: () => ImpactMinutes | null;
  /** The last committed ledger seq (no query). */
  readonly headSeq: () => number;
  readonly running: () => RunningEpisode[];
}

type Row = Record<string, unknown>;

function record(r: Row): EpisodeListRow {
  const open = Date.parse(r['t_open'] as string);
  const close = r['t_close'] === null ? Number.NaN : Date.parse(r['t_close'] as string);
  return {
    episode_id: r['episode_id'] as string,
    service: r['service'] as string,
    t_open: r['t_open'] as string,
    t_close: r['t_close'] as string | null,
    alerts: JSON.parse(r['alerts'] as string) as string[],
    confirmed: JSON.parse(r['confirmed'] as string) as unknown[],
    decision: (r['decision'] as string | null) ?? '',
    outcome: (r['outcome'] as string | null) ?? '',
    result: (r['result'] as string | null) ?? '',
    action: r['action'] as string,
    handover_s: r['handover_s'] as number | null,
    autonomy: r['autonomy'] as string,
    kind: r['kind'] as string,
    confidence: r['confidence'] as string,
    severity: r['severity'] as string,
    duration_s: Number.isNaN(close) ? null : Math.round((close - open) / 1000),
    incident_id: r['incident_id'] as string | null,
    verdict: r['verdict'] as string | null,
    suppressed: (JSON.parse(r['suppressed'] as string) as unknown[]).length > 0,
  };
}

/** The list's work over the index and the page's rows: runs on a read worker. */
export function createListReader({ index, store, headSeq }: ReaderDeps) {
  // One job at a time: its arrays are reused by the next (see Reused in list.scan.ts).
  const scratch = createScanScratch();

  /** Rows of `q`/`query` as a mask over index positions; null when neither is given. */
  function textMask(sel: Selection, nowMs: number): Uint8Array | null {
    if (sel.q === null && sel.query === null) return null;
    const mask = scratch.mask.take(index.columns().size);
    for (const rowid of store.matching(sel.q, sel.query, nowMs)) {
      const p = index.positionOf(rowid);
      if (p >= 0) mask[p] = 1;
    }
    return mask;
  }

  /** One representative per incident, in list order (episodes without one stand alone). */
  function groups(picked: Int32Array): Int32Array {
    const { incident, maxIncident } = index.columns();
    const seen = scratch.seen.take(maxIncident + 1);
    const out = scratch.grouped.take(picked.length, false);
    let n = 0;
    for (const p of picked) {
      const inc = incident[p]!;
      if (inc >= 0) {
        if (seen[inc] === 1) continue;
        seen[inc] = 1;
      }
      out[n++] = p;
    }
    return out.subarray(0, n);
  }

  function incidentRow(r: Row): EpisodeGroupRow {
    const incidentId = r['incident_id'] as string | null;
    if (incidentId === null)
      return { ...record(r), related: 0, related_ids: [], services: [r['service'] as string] };
    const rootRowid = store.rootOf(incidentId);
    const root = rootRowid === null ? r : (store.rows([rootRowid])[0] ?? r);
    const members = store.relatedOf(incidentId);
    const related = members.filter((m) => m.episode_id !== root['episode_id']);
    return {
      ...record(root),
      related: related.length,
      related_ids: related.map((m) => m.episode_id),
      services: [...new Set(members.map((m) => m.service))],
    };
  }

  return {
    /** Load the index (the cold load), so that the first request does not wait for it. */
    warm(): void {
      index.refresh();
    },
    /**
     * One list answer; call it inside one read transaction, so that the index, the page and
     * the seq come from one snapshot. Null while that snapshot is older than the job's seq.
     */
    read({ sel, nowMs, minSeq, impact }: ListJob): ListPage | null {
      const seq = headSeq();
      if (seq < minSeq) return null;
      index.refresh();
      const result = scan(index, sel, textMask(sel, nowMs), scratch);
      const rowids = index.columns().rowids;
      const ordered = sel.group ? groups(result.picked) : result.picked;
      const page = Array.from(
        ordered.subarray(sel.offset, sel.offset + sel.limit),
        (p) => rowids[p]!,
      );
      const rows = store.rows(page);
      return {
        episodes: sel.group ? rows.map(incidentRow) : rows.map(record),
        total: ordered.length,
        facets: result.facets,
        complete: result.complete,
        scorecard: result.stats === null ? null : scorecard(result.stats, impact),
        histogram: result.histogram,
        seq,
      };
    },
  };
}

/** The handler's side, on the event loop. */
export function createEpisodeList({ read, clock, impact, headSeq, running }: Deps) {
  return {
    async list(query: ListQuery): Promise<EpisodeListBody> {
      const nowMs = clock.now();
      const sel = readSelection(query, nowMs);
      // Everything committed before this request: the worker waits for its snapshot to
      // hold this seq (read-your-writes).
      const page = await read({ sel, nowMs, minSeq: headSeq(), impact: impact() });
      return {
        episodes: page.episodes,
        total: page.total,
        limit: sel.limit,
        offset: sel.offset,
        sort: `${sel.sort.descending ? '-' : ''}${sel.sort.field}`,
        running: running(),
        seq: page.seq,
        facets: page.facets,
        ...(sel.latest !== null && { latest: sel.latest, complete: page.complete }),
        ...(page.scorecard !== null && { scorecard: page.scorecard }),
        ...(page.histogram !== null && { histogram: page.histogram }),
      };
    },
  };
}
export type EpisodeList = ReturnType<typeof createEpisodeList>;
export type ListReader = ReturnType<typeof createListReader>;
