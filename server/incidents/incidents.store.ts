// SQL of incidents: the projection of incident.opened / joined / status.
import type { Database } from 'better-sqlite3';
import { projectionOf, type LedgerEvent } from '../ledger/index.js';
import type { IncidentEvents } from './incidents.events.js';
import { INCIDENT_STATUSES, type HistoryEntry, type IncidentStatus } from './incidents.schemas.js';

export const INCIDENT_OPENED = 'incident.opened';
export const INCIDENT_JOINED = 'incident.joined';
export const INCIDENT_STATUS = 'incident.status';
/**
 * An episode found to be the downstream effect of another's proven cause joins that
 * episode's incident; the incident it leaves, when nothing else is in it, is resolved as
 * merged.
 */
export const INCIDENT_LINKED = 'incident.linked';

export { INCIDENT_STATUSES, type HistoryEntry, type IncidentStatus };

export interface IncidentRow {
  readonly incident_id: string;
  readonly root_episode_id: string;
  readonly status: IncidentStatus;
  readonly group_key: string | null;
  readonly t_open: string;
  readonly t_resolved: string | null;
  readonly services: string;
  readonly history: string;
  readonly episodes: number;
}

/** One line of an incident's history, in the order it happened. */

const COLUMNS = `incident_id, root_episode_id, status, group_key, t_open, t_resolved, services, history`;
/** Rebuild replays rows as stored, so a field is read as text whatever it holds. */
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
/**
 * A status in an incident.status event, kept in the history as written: the service only
 * writes statuses, and an old row is shown as it was rather than refused.
 */
const statusText = (v: unknown): IncidentStatus => text(v) as IncidentStatus;

/**
 * What incidents read of their episodes; the episodes store implements it and the composition
 * root passes it in (episodes depend on incidents, so the port is declared here).
 */
export interface IncidentEpisodeCounts {
  /** How many episodes each incident holds (incidents without any are absent). */
  countsOf(incidentIds: readonly string[]): ReadonlyMap<string, number>;
  /** Whether the incident holds an episode other than this one. */
  othersIn(incidentId: string, episodeId: string): boolean;
}

type IncidentRecord = Omit<IncidentRow, 'episodes'>;

export function createIncidentsStore(db: Database, episodes: IncidentEpisodeCounts) {
  const get = db.prepare<[string], IncidentRecord>(
    `SELECT ${COLUMNS} FROM incidents WHERE incident_id = ?`,
  );
  const rootOf = db.prepare<[string], { root_episode_id: string }>(
    `SELECT root_episode_id FROM incidents WHERE incident_id = ?`,
  );
  const firing = db.prepare<[], { n: number }>(
    `SELECT count(*) AS n FROM incidents WHERE status IN ('open', 'mitigating')`,
  );
  function withCounts(rows: readonly IncidentRecord[]): IncidentRow[] {
    const counts = episodes.countsOf(rows.map((r) => r.incident_id));
    return rows.map((r) => ({ ...r, episodes: counts.get(r.incident_id) ?? 0 }));
  }
  const joinable = db.prepare<[string, string], { incident_id: string }>(
    `SELECT incident_id FROM incidents
     WHERE group_key = ? AND status <> 'resolved' AND t_open >= ? ORDER BY t_open LIMIT 1`,
  );
  const insert = db.prepare<Record<string, unknown>>(
    `INSERT INTO incidents (incident_id, root_episode_id, status, group_key, t_open, services, history, first_seq, last_seq)
     VALUES (@incident_id, @episode_id, 'open', @group_key, @ts, json_array(@service), json_array(json(@entry)), @seq, @seq)`,
  );
  const joined = db.prepare<Record<string, unknown>>(
    `UPDATE incidents SET
       services = CASE WHEN EXISTS (SELECT 1 FROM json_each(services) WHERE value = @service)
                  THEN services ELSE json_insert(services, '$[#]', @service) END,
       history = json_insert(history, '$[#]', json(@entry)), last_seq = @seq
     WHERE incident_id = @incident_id`,
  );
  const status = db.prepare<Record<string, unknown>>(
    `UPDATE incidents SET status = @to,
       t_resolved = CASE WHEN @to = 'resolved' THEN @ts ELSE NULL END,
       history = json_insert(history, '$[#]', json(@entry)), last_seq = @seq
     WHERE incident_id = @incident_id`,
  );

  const emptied = db.prepare<Record<string, unknown>>(
    `UPDATE incidents SET status = 'resolved', t_resolved = @ts,
       history = json_insert(history, '$[#]', json(@entry)), last_seq = @seq
     WHERE incident_id = @from`,
  );

  function placed(
    d: IncidentEvents['incident.opened'] | IncidentEvents['incident.joined'],
    e: LedgerEvent,
    event: 'opened' | 'joined',
  ) {
    const entry: HistoryEntry = {
      at: e.ts,
      seq: e.seq,
      event,
      episode_id: text(d.episode_id),
      service: text(d.service),
    };
    return {
      incident_id: text(d.incident_id),
      episode_id: text(d.episode_id),
      service: text(d.service),
      entry: JSON.stringify(entry),
      seq: e.seq,
    };
  }

  const projection = projectionOf<IncidentEvents>({
    name: 'incidents',
    tables: ['incidents'],
    on: {
      [INCIDENT_OPENED]: (d, e) => {
        const key: unknown = d.group_key;
        insert.run({
          ...placed(d, e, 'opened'),
          group_key: typeof key === 'string' ? key : null,
          ts: e.ts,
        });
      },
      [INCIDENT_JOINED]: (d, e) => {
        joined.run(placed(d, e, 'joined'));
      },
      [INCIDENT_STATUS]: (d, e) => {
        const entry: HistoryEntry = {
          at: e.ts,
          seq: e.seq,
          event: 'status',
          from: statusText(d.from),
          to: statusText(d.to),
          why: e.reason,
        };
        status.run({
          incident_id: text(d.incident_id),
          to: text(d.to),
          ts: e.ts,
          entry: JSON.stringify(entry),
          seq: e.seq,
        });
      },
      [INCIDENT_LINKED]: (d, e) => {
        const incidentId = text(d.incident_id);
        const base = {
          at: e.ts,
          seq: e.seq,
          episode_id: text(d.episode_id),
          service: text(d.service),
        };
        joined.run({
          incident_id: incidentId,
          service: text(d.service),
          entry: JSON.stringify({
            ...base,
            event: 'joined',
            relation: text(d.relation),
            from: text(d.from_incident),
          }),
          seq: e.seq,
        });
        // The incident it leaves resolves as merged when no other episode is in it.
        if (!episodes.othersIn(text(d.from_incident), text(d.episode_id)))
          emptied.run({
            from: text(d.from_incident),
            ts: e.ts,
            entry: JSON.stringify({ ...base, event: 'merged', into: incidentId }),
            seq: e.seq,
          });
      },
    },
  });

  const touched = db.prepare<
    [string, string, string, string],
    { incident_id: string; t_open: string; t_resolved: string | null; services: string }
  >(
    `SELECT incident_id, t_open, t_resolved, services FROM incidents
     WHERE (t_open >= ? AND t_open < ?) OR (t_resolved >= ? AND t_resolved < ?)`,
  );

  return {
    /** Incidents opened or resolved in [from, to) (the digest). */
    touched: (fromIso: string, toIso: string) =>
      touched.all(fromIso, toIso, fromIso, toIso).map((r) => ({
        ...r,
        services: JSON.parse(r.services) as string[],
      })),
    get(id: string): IncidentRow | null {
      const row = get.get(id);
      return row === undefined ? null : (withCounts([row])[0] ?? null);
    },
    /** The episode that opened the incident. */
    rootEpisodeOf: (id: string): string | null => rootOf.get(id)?.root_episode_id ?? null,
    /** How many incidents still have an alert firing (open or mitigating). */
    firing: (): number => firing.get()?.n ?? 0,
    /** The unresolved incident of this grouping key opened at or after `sinceIso`, if any. */
    joinable: (groupKey: string, sinceIso: string): string | null =>
      joinable.get(groupKey, sinceIso)?.incident_id ?? null,
    list(statuses: readonly IncidentStatus[], limit: number, offset: number) {
      const marks = statuses.map(() => '?').join(', ');
      const where = statuses.length > 0 ? `WHERE status IN (${marks})` : '';
      const rows = db
        .prepare<unknown[], IncidentRecord>(
          `SELECT ${COLUMNS} FROM incidents ${where} ORDER BY t_open DESC, incident_id DESC LIMIT ? OFFSET ?`,
        )
        .all(...statuses, limit, offset);
      const total = db
        .prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM incidents ${where}`)
        .get(...statuses)?.n;
      return { rows: withCounts(rows), total: total ?? 0 };
    },
    projection,
  };
}
export type IncidentsStore = ReturnType<typeof createIncidentsStore>;
