// SQL of the episode list: `q` and `query` select rows by text, through the shared query
// language (`q` through its full-text index where it can), and the rows of a page are read
// whole by rowid.
import type { Database } from 'better-sqlite3';
import type { IncidentsStore } from '../incidents/index.js';
import { SEVERITY_ORDER, worstSeveritySql } from '../intake/index.js';
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

/**
 * An episode's severity: the worst of its signals' (intake's port), read from projections, so
 * a rebuild from the ledger yields it with no column of its own.
 */
const SEVERITY = worstSeveritySql(
  `SELECT source, fingerprint FROM episode_signals WHERE episode_id = episodes.episode_id`,
);

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
    severity: { column: SEVERITY, type: 'enum', values: SEVERITY_ORDER },
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

/** ASCII letters to lower case and nothing else, as SQLite's lower() and LIKE fold them. */
const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/** The trigram index finds substrings of at least this many characters (code points). */
const TRIGRAM = 3;

/**
 * How the full-text index answers `q`, or null where it cannot and the scan does.
 *
 * `q` is the query language's bare word: a substring match over the text columns, folding
 * ASCII case only, `*` any run of characters and `?` one (LIKE with `%`, `_` and `\` taken
 * literally). The index (episodes_fts) holds each column as LIKE reads it, ASCII-lowered and
 * cut at a NUL, in trigrams of code points, folding nothing more. Each literal run of 3+
 * characters becomes a phrase every match contains, quoted so that nothing in it is FTS
 * syntax. When `q` is one such run, containing it is the whole test (`exact`); otherwise the
 * rows found are tested with the scan's LIKE.
 */
export function searchOf(q: string): { match: string; exact: boolean } | null {
  // LIKE stops reading its pattern at a NUL: only the scan answers such a `q` as before.
  if (q.includes('\0')) return null;
  const runs = q.split(/[*?]+/).filter((run) => [...run].length >= TRIGRAM);
  if (runs.length === 0) return null;
  return {
    match: runs.map((run) => `"${lowerAscii(run).replaceAll('"', '""')}"`).join(' AND '),
    exact: runs.length === 1 && runs[0] === q,
  };
}

/** The incident's root episode comes from the incidents domain, which owns that table. */
export function createEpisodeListStore(
  db: Database,
  incidents: Pick<IncidentsStore, 'rootEpisodeOf'>,
) {
  const byRowid = db.prepare<[string], Record<string, unknown> & { rowid: number }>(
    `SELECT rowid, episode_id, service, t_open, t_close, alerts, confirmed, decision, outcome, result,
       action, handover_s, autonomy, kind, confidence, incident_id, relation, verdict, suppressed,
       (${SEVERITY}) AS severity
     FROM episodes WHERE rowid IN (SELECT value FROM json_each(?))`,
  );
  const relatedOf = db.prepare<[string], { episode_id: string; service: string; relation: string }>(
    `SELECT episode_id, service, relation FROM episodes WHERE incident_id = ? ORDER BY first_seq`,
  );
  const rowidOf = db.prepare<[string], { rowid: number }>(
    `SELECT rowid FROM episodes WHERE episode_id = ?`,
  );
  // Every row the index finds matches: only the running episodes (a few, through their
  // partial index) are left out, rather than reading each found row for its status. They
  // are taken out in JavaScript rather than by a NOT IN in the query, which looked each
  // found rowid up in a temporary index (a third of the query's time at 66,000 rows). The
  // rowids cross into JavaScript as one JSON array, not a row each (a fifth less).
  const searched = db
    .prepare<[string], string>(
      `SELECT json_group_array(rowid) FROM episodes_fts WHERE episodes_fts MATCH ?`,
    )
    .pluck();
  const running = db
    .prepare<[], number>(`SELECT rowid FROM episodes WHERE status <> 'closed'`)
    .pluck();

  return {
    /** Rowids of closed episodes that match `q` (any text column) and `query`. */
    matching(q: string | null, query: string | null, nowMs: number): number[] {
      const search = q === null ? null : searchOf(q);
      if (search?.exact === true && query === null) {
        const found = JSON.parse(searched.get(search.match) ?? '[]') as number[];
        const open = new Set(running.all());
        return open.size === 0 ? found : found.filter((rowid) => !open.has(rowid));
      }
      const parts: string[] = [];
      const params: (string | number)[] = [];
      if (search !== null) {
        parts.push(`rowid IN (SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ?)`);
        params.push(search.match);
      }
      for (const node of [
        q === null || search?.exact === true ? null : ({ kind: 'word', value: q } as const),
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
