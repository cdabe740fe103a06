// The incidents' answers on the wire (GET /v1/incidents, GET /v1/incidents/<id>): the routes'
// schemas, and the types the service builds and the console reads
// (renderer/src/features/incidents). Types only from typebox: the console compiles it too.
import { Type, type Static } from 'typebox';

export const INCIDENT_STATUSES = ['open', 'mitigating', 'monitoring', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** A status on the wire: a string for the serializer, one of INCIDENT_STATUSES for the types. */
const Status = Type.Unsafe<IncidentStatus>(
  Type.String({ description: INCIDENT_STATUSES.join(' | ') }),
);

const Summary = Type.Object({
  incident_id: Type.String(),
  status: Status,
  root_episode_id: Type.String(),
  services: Type.Array(Type.String()),
  episodes: Type.Integer(),
  t_open: Type.String(),
  t_resolved: Type.Union([Type.String(), Type.Null()]),
});

export const IncidentListBody = Type.Object({
  incidents: Type.Array(Summary),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const IncidentBody = Type.Object({
  incident_id: Type.String(),
  status: Status,
  root_episode_id: Type.String(),
  services: Type.Array(Type.String()),
  lifecycle: Type.Object({
    status: Status,
    opened_at: Type.String(),
    resolved_at: Type.Union([Type.String(), Type.Null()]),
    duration_s: Type.Integer(),
  }),
  episodes: Type.Array(Type.Unknown()),
  causes: Type.Array(Type.Unknown()),
  fixes: Type.Array(Type.Unknown()),
  history: Type.Array(Type.Unknown()),
});

/** GET /v1/incidents. */
export type IncidentListBody = Static<typeof IncidentListBody>;
export type IncidentSummary = IncidentListBody['incidents'][number];

/** One entry of an incident's history (the store's projection of its events). */
export interface HistoryEntry {
  readonly at: string;
  readonly seq: number;
  readonly event: 'opened' | 'joined' | 'status';
  readonly episode_id?: string;
  readonly service?: string;
  readonly from?: IncidentStatus;
  readonly to?: IncidentStatus;
  readonly why?: string | null;
}

/** An episode of the incident as GET /v1/incidents/<id> lists it. */
export interface IncidentEpisodeView {
  episode_id: string;
  service: string;
  relation: string;
  status: 'open' | 'quiet' | 'closed';
  t_open: string;
  t_close: string | null;
  alerts: string[];
  decision: string;
  outcome: string;
  result: string;
}

/**
 * GET /v1/incidents/<id>: the schema's body with its lists typed (the schema leaves them open,
 * so that its serializer passes them through as built).
 */
export type IncidentDetail = Omit<
  Static<typeof IncidentBody>,
  'episodes' | 'causes' | 'fixes' | 'history'
> & {
  episodes: IncidentEpisodeView[];
  causes: { episode_id: string; cause: unknown }[];
  fixes: { episode_id: string; fix: string; action: string }[];
  history: HistoryEntry[];
};
