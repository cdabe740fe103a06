// The episodes' answers on the wire (GET /v1/live, GET /v1/episodes, GET /v1/episodes/<id>,
// POST /v1/episodes/<id>/team): the routes' schemas, and their types for the console
// (renderer/src/features/episodes, features/live). Types only from typebox: the console
// compiles this file too. The list's rows, scorecard and histogram are in episodes.wire.ts.
import { Type, type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

export const Running = Type.Object({
  episode_id: Type.String(),
  service: Type.String(),
  alerts: Type.Array(Type.String()),
  status: Type.String(),
  step: Type.String(),
  t_open: Type.String(),
  /** The worst severity of the episode's signals (critical, high, warning, info, unknown). */
  severity: Type.String(),
  incident_id: Nullable(Type.String()),
  /** The autonomy level in force for the episode (off, shadow, L1, L2). */
  autonomy: Type.String(),
  /** Its leading hypothesis's confidence (proven … unproven); '' while none is held. */
  confidence: Type.String(),
  /** Its latest action's state (taken_back, not_verified, running, verified, …); '' when none. */
  action: Type.String(),
});

export const LiveBody = Type.Object({ seq: Type.Integer(), running: Type.Array(Running) });

export const TeamBody = Type.Object(
  {
    verdict: Type.Union([
      Type.Literal('same'),
      Type.Literal('advice'),
      Type.Literal('other'),
      Type.Literal('none'),
    ]),
    detail: Type.Optional(Type.String({ maxLength: 2000 })),
    by: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const TeamAnswer = Type.Object({
  episode_id: Type.String(),
  verdict: Type.String(),
  detail: Nullable(Type.String()),
  by: Type.String(),
  at: Type.String(),
  seq: Type.Integer(),
});

export const TimelineEvent = Type.Object({
  seq: Type.Integer(),
  ts: Type.String(),
  type: Type.String(),
  actor: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  reason: Nullable(Type.String()),
});

export const EpisodeBody = Type.Object({
  episode_id: Type.String(),
  service: Type.String(),
  t_open: Type.String(),
  t_close: Nullable(Type.String()),
  alerts: Type.Array(Type.String()),
  confirmed: Type.Array(Type.Unknown()),
  decision: Type.String(),
  outcome: Type.String(),
  result: Type.String(),
  action: Type.String(),
  handover_s: Nullable(Type.Integer()),
  autonomy: Type.String(),
  kind: Type.String(),
  incident_id: Nullable(Type.String()),
  relation: Type.String(),
  confidence: Type.String(),
  suppressed: Type.Array(Type.Unknown()),
  team: Nullable(Type.Object({ verdict: Type.String(), detail: Nullable(Type.String()) })),
  live: Type.Boolean(),
  status: Type.Optional(Type.String()),
  step: Type.Optional(Type.String()),
  findings: Type.Optional(Type.Array(Type.Unknown())),
  hypotheses: Type.Optional(Type.Array(Type.Unknown())),
  decision_detail: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  actions: Type.Optional(Type.Array(Type.Unknown())),
  changes: Type.Optional(Type.Array(Type.Unknown())),
  packs: Type.Optional(Type.Array(Type.Unknown())),
  investigation: Type.Optional(
    Nullable(
      Type.Object({
        status: Type.String(),
        step: Type.String(),
        request_id: Nullable(Type.String()),
      }),
    ),
  ),
  timeline: Type.Array(TimelineEvent),
  more: Type.Boolean(),
});

export const ListBody = Type.Object({
  episodes: Type.Array(Type.Unknown()),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  sort: Type.String(),
  running: Type.Array(Running),
  seq: Type.Integer(),
  facets: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer())),
  latest: Type.Optional(Type.Integer()),
  complete: Type.Optional(Type.Boolean()),
  scorecard: Type.Optional(Type.Unknown()),
  histogram: Type.Optional(Type.Array(Type.Unknown())),
});

export type RunningEpisode = Static<typeof Running>;
export type LiveBody = Static<typeof LiveBody>;
export type TimelineEvent = Static<typeof TimelineEvent>;
export type EpisodeBody = Static<typeof EpisodeBody>;
export type TeamBody = Static<typeof TeamBody>;
export type TeamAnswer = Static<typeof TeamAnswer>;
