// GET /v1/episodes: closed episodes with every filter of the specification, facet counts, the
// scorecard and the per-day histogram, plus the running episodes and the live seq.
import type { Clock } from '../shared/clock.js';
import type { EpisodeIndex } from './list.index.js';
import { readSelection, type ListQuery, type Selection } from './list.params.js';
import type { EpisodeListStore } from './list.query.js';
import { scan } from './list.scan.js';
import { scorecard, type ImpactMinutes } from './scorecard.js';

interface Deps {
  readonly index: EpisodeIndex;
  readonly store: EpisodeListStore;
  readonly clock: Clock;
  /** The caller's impact figures, or null when none is set. */
  readonly impact: () => ImpactMinutes | null;
  readonly live: () => { seq: number; running: RunningEpisode[] };
}

type Row = Record<string, unknown>;

export interface RunningEpisode {
  episode_id: string;
  service: string;
  alerts: string[];
  status: string;
  step: string;
  t_open: string;
}

function record(r: Row) {
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
    duration_s: Number.isNaN(close) ? null : Math.round((close - open) / 1000),
    incident_id: r['incident_id'] as string | null,
    verdict: r['verdict'] as string | null,
    suppressed: (JSON.parse(r['suppressed'] as string) as unknown[]).length > 0,
  };
}

export function createEpisodeList({ index, store, clock, impact, live }: Deps) {
  /** Rows of `q`/`query` as a mask over index positions; null when neither is given. */
  function textMask(sel: Selection): Uint8Array | null {
    if (sel.q === null && sel.query === null) return null;
    const mask = new Uint8Array(index.columns().size);
    for (const rowid of store.matching(sel.q, sel.query, clock.now())) {
      const p = index.positionOf(rowid);
      if (p >= 0) mask[p] = 1;
    }
    return mask;
  }

  /** One representative per incident, in list order (episodes without one stand alone). */
  function groups(picked: Int32Array): Int32Array {
    const { incident, maxIncident } = index.columns();
    const seen = new Uint8Array(maxIncident + 1);
    const out = new Int32Array(picked.length);
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

  function incidentRow(r: Row) {
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
    list(query: ListQuery) {
      const sel = readSelection(query, clock.now());
      index.refresh();
      const result = scan(index, sel, textMask(sel));
      const rowids = index.columns().rowids;
      const ordered = sel.group ? groups(result.picked) : result.picked;
      const page = Array.from(
        ordered.subarray(sel.offset, sel.offset + sel.limit),
        (p) => rowids[p]!,
      );
      const rows = store.rows(page);
      const { seq, running } = live();
      return {
        episodes: sel.group ? rows.map(incidentRow) : rows.map(record),
        total: ordered.length,
        limit: sel.limit,
        offset: sel.offset,
        sort: `${sel.sort.descending ? '-' : ''}${sel.sort.field}`,
        running,
        seq,
        facets: result.facets,
        ...(sel.latest !== null && { latest: sel.latest, complete: result.complete }),
        ...(result.stats !== null && { scorecard: scorecard(result.stats, impact()) }),
        ...(result.histogram !== null && { histogram: result.histogram }),
      };
    },
  };
}
export type EpisodeList = ReturnType<typeof createEpisodeList>;
