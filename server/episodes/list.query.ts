// SQL of the episode list: `q` and `query` select rows by text, through the shared query
// language, and the rows of a page are read whole by rowid.
import type { Database } from 'better-sqlite3';
import type { IncidentsStore } from '../incidents/index.js';
import { compileQuery, parseQuery, type QueryFields } from '../shared/query-language.js';
import {
  ACTIONS,
  CONFIDENCES,
  DECISIONS,
  KINDS,
  OUTCOMES,
  RESULTS,
  TEAM_VERDICTS,
} from './enumerations.js';

const DURATION = `CAST(round((julianday(t_close) - julianday(t_open)) * 86400) AS INTEGER)`;

export const EPISODE_QUERY_FIELDS: QueryFields = {
  list: 'episodes',
  fields: {
    id: { column: 'episode_id', type: 'text' },
    episode_id: { column: 'episode_id', type: 'text' },
    service: { column: 'service', type: 'text' },
    alert: { column: 'alerts', type: 'text', multi: 'json_array' },
    alerts: { column: 'alerts', type: 'text', multi: 'json_array' },
    decision: { column: 'decision', type: 'enum', values: DECISIONS },
    outcome: { column: 'outcome', type: 'enum', values: OUTCOMES },
    result: { column: 'result', type: 'enum', values: RESULTS },
    confidence: { column: 'confidence', type: 'enum', values: CONFIDENCES },
    kind: { column: 'kind', type: 'enum', values: KINDS },
    action: { column: 'action', type: 'enum', values: ACTIONS.filter((a) => a !== '') },
    verdict: { column: 'verdict', type: 'enum', values: TEAM_VERDICTS },
    autonomy: { column: 'autonomy', type: 'text' },
    incident: { column: 'incident_id', type: 'text' },
    cause: { column: 'confirmed', type: 'text' },
    note: { column: 'note', type: 'text' },
    diagnosis: { column: 'diagnosis', type: 'text' },
    fix: { column: 'fix', type: 'text' },
    t_open: { column: 't_open', type: 'time' },
    t_close: { column: 't_close', type: 'time' },
    duration: { column: DURATION, type: 'seconds' },
    handover: { column: 'handover_s', type: 'seconds' },
    handover_s: { column: 'handover_s', type: 'seconds' },
    restore: { column: 'restore_s', type: 'seconds' },
  },
  timeColumn: 't_open',
  textColumns: ['episode_id', 'service', 'alerts', 'confirmed', 'note', 'fix', 'diagnosis'],
};

/** The incident's root episode comes from the incidents domain, which owns that table. */
export function createEpisodeListStore(
  db: Database,
  incidents: Pick<IncidentsStore, 'rootEpisodeOf'>,
) {
  const byRowid = db.prepare<[string], Record<string, unknown> & { rowid: number }>(
    `SELECT rowid, episode_id, service, t_open, t_close, alerts, confirmed, decision, outcome, result,
       action, handover_s, autonomy, kind, confidence, incident_id, relation, verdict, suppressed
     FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))`,
  );
  const relatedOf = db.prepare<[string], { episode_id: string; service: string; relation: string }>(
    `SELECT episode_id, service, relation FROM episodes WHERE incident_id = ? ORDER BY first_seq`,
  );
  const rowidOf = db.prepare<[string], { rowid: number }>(
    `SELECT rowid FROM episodes WHERE episode_id = ?`,
  );

  return {
    /** Rowids of closed episodes that match `q` (any text column) and `query`. */
    matching(q: string | null, query: string | null, nowMs: number): number[] {
      const parts: string[] = [];
      const params: (string | number)[] = [];
      for (const node of [
        q === null ? null : ({ kind: 'word', value: q } as const),
        query === null ? null : parseQuery(query),
      ]) {
        if (node === null) continue;
        const compiled = compileQuery(node, EPISODE_QUERY_FIELDS, nowMs);
        parts.push(compiled.sql);
        params.push(...compiled.params);
      }
      return db
        .prepare<(string | number)[], number>(
          `SELECT rowid FROM episodes WHERE status = 'closed' AND ${parts.join(' AND ')}`,
        )
        .pluck()
        .all(...params);
    },
    /** Whole rows by rowid, in the order given. */
    rows(rowids: readonly number[]) {
      const found = new Map(byRowid.all(JSON.stringify(rowids)).map((r) => [r.rowid, r] as const));
      return rowids.flatMap((id) => {
        const r = found.get(id);
        return r === undefined ? [] : [r];
      });
    },
    /** The incident's episodes, root first. */
    relatedOf: (incidentId: string) => relatedOf.all(incidentId),
    rootOf(incidentId: string): number | null {
      const root = incidents.rootEpisodeOf(incidentId);
      return root === null ? null : (rowidOf.get(root)?.rowid ?? null);
    },
  };
}
export type EpisodeListStore = ReturnType<typeof createEpisodeListStore>;
