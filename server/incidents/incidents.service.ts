// Incidents: an episode that opens joins the unresolved incident of its grouping key opened
// within the grouping window, or opens one of its own. The status follows the episodes:
// open while any alert fires, monitoring once every alert ended (the flap hold), resolved
// when every episode closed. `mitigating` is set by actions (a later capability).
import { randomBytes } from 'node:crypto';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { NotFoundError } from '../shared/errors.js';
import {
  INCIDENT_JOINED,
  INCIDENT_LINKED,
  INCIDENT_OPENED,
  INCIDENT_STATUS,
  type HistoryEntry,
  type IncidentRow,
  type IncidentStatus,
  type IncidentsStore,
} from './incidents.store.js';
import type { IncidentEvents } from './incidents.events.js';
import type { IncidentDetail, IncidentListBody } from './incidents.schemas.js';

/** What an incident needs to know of its episodes (the episodes store supplies it). */
export interface IncidentEpisode {
  readonly episode_id: string;
  readonly service: string;
  readonly status: 'open' | 'quiet' | 'closed';
  readonly relation: string;
  readonly t_open: string;
  readonly t_close: string | null;
  readonly alerts: string;
  readonly confirmed: string;
  readonly decision: string | null;
  readonly outcome: string | null;
  readonly result: string | null;
  readonly action: string;
  readonly fix: string | null;
}

interface Deps {
  readonly store: IncidentsStore;
  readonly ledger: DomainLedger<IncidentEvents>;
  readonly clock: Clock;
  readonly episodesOf: (incidentId: string) => IncidentEpisode[];
}

export interface IncidentPlacement {
  readonly incidentId: string;
  readonly opened: boolean;
  readonly groupKey: string | null;
}

/** An episode moving from its incident into the incident of the episode it relates to. */
export interface IncidentMove {
  readonly episodeId: string;
  readonly service: string;
  readonly from: string;
  readonly to: string;
  readonly relation: 'downstream' | 'same_cause' | 'related';
  /** the episode whose incident it joins */
  readonly toEpisode: string;
}

/** `in-<UTC timestamp>-<hex>`, like episode ids. */
export function newIncidentId(nowIso: string): string {
  const stamp = nowIso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `in-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** The status an incident's episodes imply; `mitigating` stays while any alert fires. */
export function derivedStatus(
  current: IncidentStatus,
  episodes: readonly { status: 'open' | 'quiet' | 'closed' }[],
): IncidentStatus {
  if (episodes.some((e) => e.status === 'open')) return current === 'mitigating' ? current : 'open';
  if (episodes.some((e) => e.status === 'quiet')) return 'monitoring';
  return 'resolved';
}

const WHY: Record<IncidentStatus, string> = {
  open: 'an alert of the incident fires',
  mitigating: 'an action is mitigating the incident',
  monitoring: 'every alert of the incident ended; watching for their return',
  resolved: 'every episode of the incident closed',
};

export function createIncidentsService({ store, ledger, clock, episodesOf }: Deps) {
  function record(row: IncidentRow): IncidentDetail {
    const episodes = episodesOf(row.incident_id);
    const parse = (s: string): unknown[] => JSON.parse(s) as unknown[];
    const causes = episodes.flatMap((e) =>
      parse(e.confirmed).map((cause) => ({ episode_id: e.episode_id, cause })),
    );
    const fixes = episodes
      .filter((e) => e.action !== '' || (e.fix ?? '') !== '')
      .map((e) => ({ episode_id: e.episode_id, fix: e.fix ?? '', action: e.action }));
    const endMs = row.t_resolved === null ? clock.now() : Date.parse(row.t_resolved);
    return {
      incident_id: row.incident_id,
      status: row.status,
      root_episode_id: row.root_episode_id,
      services: JSON.parse(row.services) as string[],
      lifecycle: {
        status: row.status,
        opened_at: row.t_open,
        resolved_at: row.t_resolved,
        duration_s: Math.max(0, Math.round((endMs - Date.parse(row.t_open)) / 1000)),
      },
      episodes: episodes.map((e) => ({
        episode_id: e.episode_id,
        service: e.service,
        relation: e.relation,
        status: e.status,
        t_open: e.t_open,
        t_close: e.t_close,
        alerts: JSON.parse(e.alerts) as string[],
        decision: e.decision ?? '',
        outcome: e.outcome ?? '',
        result: e.result ?? '',
      })),
      causes,
      fixes,
      history: JSON.parse(row.history) as HistoryEntry[],
    };
  }

  /** Record a status change when the episodes imply one; inside a writer job. */
  function refresh(incidentId: string): void {
    const row = store.get(incidentId);
    if (row === null) return;
    const to = derivedStatus(row.status, episodesOf(incidentId));
    if (to === row.status) return;
    ledger.append({
      type: INCIDENT_STATUS,
      actor: 'system',
      data: { incident_id: incidentId, from: row.status, to },
      reason: WHY[to],
      trace_id: incidentId,
    });
  }

  return {
    refresh,
    /**
     * The incident a newly opened episode belongs to; call inside the writer job, before the
     * episode's own event, then `attach` after it.
     */
    place(groupKey: string | null, windowS: number): IncidentPlacement {
      const since = new Date(clock.now() - windowS * 1000).toISOString();
      const existing = groupKey === null ? null : store.joinable(groupKey, since);
      return existing !== null
        ? { incidentId: existing, opened: false, groupKey }
        : { incidentId: newIncidentId(clock.nowIso()), opened: true, groupKey };
    },
    attach(placement: IncidentPlacement, episode: { episodeId: string; service: string }): void {
      ledger.append({
        type: placement.opened ? INCIDENT_OPENED : INCIDENT_JOINED,
        actor: 'system',
        data: {
          incident_id: placement.incidentId,
          episode_id: episode.episodeId,
          service: episode.service,
          ...(placement.opened && { group_key: placement.groupKey }),
        },
        ...(!placement.opened && {
          reason: 'opened within the grouping window with the same grouping values',
        }),
        trace_id: placement.incidentId,
      });
      refresh(placement.incidentId);
    },
    /**
     * Move an episode into another incident (downstream, same cause or related, as the
     * investigation found); inside a writer job. The incident it leaves, left empty, resolves.
     */
    link(move: IncidentMove): void {
      ledger.append({
        type: INCIDENT_LINKED,
        actor: 'system',
        data: {
          incident_id: move.to,
          episode_id: move.episodeId,
          service: move.service,
          from_incident: move.from,
          relation: move.relation,
          to_episode: move.toEpisode,
        },
        reason:
          move.relation === 'downstream'
            ? `downstream of ${move.toEpisode}, whose proven cause explains it`
            : move.relation === 'same_cause'
              ? `the same cause as ${move.toEpisode}`
              : `related to ${move.toEpisode} through the estate`,
        trace_id: move.to,
      });
    },
    list(statuses: readonly IncidentStatus[], limit: number, offset: number): IncidentListBody {
      const { rows, total } = store.list(statuses, limit, offset);
      return {
        incidents: rows.map((row) => ({
          incident_id: row.incident_id,
          status: row.status,
          root_episode_id: row.root_episode_id,
          services: JSON.parse(row.services) as string[],
          episodes: row.episodes,
          t_open: row.t_open,
          t_resolved: row.t_resolved,
        })),
        total,
        limit,
        offset,
      };
    },
    get(id: string): IncidentDetail {
      const row = store.get(id);
      if (row === null) throw new NotFoundError('not_found', `no incident ${id}`);
      return record(row);
    },
  };
}
export type IncidentsService = ReturnType<typeof createIncidentsService>;
