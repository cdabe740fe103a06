import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { errorResponses } from '../http/common.schemas.js';
import { noneMatch, strongTag } from '../http/etag.js';
import type { TEAM_VERDICTS } from './episodes.service.js';
import { type EpisodesService } from './episodes.service.js';
import { ListQuery } from './list.params.js';
import type { EpisodeList } from './list.service.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

const Running = Type.Object({
  episode_id: Type.String(),
  service: Type.String(),
  alerts: Type.Array(Type.String()),
  status: Type.String(),
  step: Type.String(),
  t_open: Type.String(),
  /** The worst severity of the episode's signals (critical, high, warning, info, unknown). */
  severity: Type.String(),
  incident_id: Nullable(Type.String()),
});

export const LiveBody = Type.Object({ seq: Type.Integer(), running: Type.Array(Running) });

const EpisodeId = Type.String({ pattern: '^ep-[0-9TZ]+-[0-9a-f]+$', maxLength: 64 });

const TeamBody = Type.Object(
  {
    verdict: Type.Union([
      Type.Literal('same'),
      Type.Literal('advice'),
      Type.Literal('other'),
      Type.Literal('none'),
    ] satisfies { const: (typeof TEAM_VERDICTS)[number] }[]),
    detail: Type.Optional(Type.String({ maxLength: 2000 })),
    by: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

const TeamAnswer = Type.Object({
  episode_id: Type.String(),
  verdict: Type.String(),
  detail: Nullable(Type.String()),
  by: Type.String(),
  at: Type.String(),
  seq: Type.Integer(),
});

const TimelineEvent = Type.Object({
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

const ListBody = Type.Object({
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

export const episodesRoutes: FastifyPluginAsyncTypebox<{
  episodes: EpisodesService;
  list: EpisodeList;
  mode: () => Mode;
}> = async (app, { episodes, list, mode }) => {
  // Episodes are open from configuring on (architecture: modes); the credential comes first.
  const open = requireMode(mode, 'configuring');
  app.get(
    '/episodes',
    {
      schema: {
        summary:
          'Closed episodes with filters, facet counts, optional scorecard and histogram; running episodes and seq',
        tags: ['incidents'],
        querystring: ListQuery,
        response: { 200: ListBody, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) => list.list(req.query),
  );

  app.get(
    '/live',
    {
      schema: {
        summary:
          'Running episodes; seq moves on every change. A strong ETag follows seq: If-None-Match answers 304 until it moves',
        tags: ['incidents'],
        response: {
          200: LiveBody,
          304: Type.Null({ description: 'Not modified: seq has not moved since that ETag' }),
          ...errorResponses,
        },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req, reply) => {
      // Revalidate on every use; the answer is the caller's own (it needs a credential).
      void reply.header('cache-control', 'private, no-cache');
      const now = strongTag(episodes.liveVersion());
      if (noneMatch(req.headers['if-none-match'], now))
        return reply.code(304).header('etag', now).send(null);
      const body = episodes.live();
      void reply.header('etag', strongTag(episodes.liveVersion(body.seq)));
      return body;
    },
  );

  app.get(
    '/episodes/:id',
    {
      schema: {
        summary:
          'An episode: its record when closed, its live view while running; after_seq for the timeline since',
        tags: ['incidents'],
        params: Type.Object({ id: EpisodeId }),
        querystring: Type.Object(
          { after_seq: Type.Optional(Type.Integer({ minimum: 0 })) },
          { additionalProperties: false },
        ),
        response: { 200: EpisodeBody, 404: errorResponses[400], ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) => episodes.get(req.params.id, req.query.after_seq),
  );

  app.post(
    '/episodes/:id/team',
    {
      schema: {
        summary:
          "Record the team's verdict on an episode: same, advice, other (with detail) or none",
        tags: ['incidents'],
        params: Type.Object({ id: EpisodeId }),
        body: TeamBody,
        response: { 200: TeamAnswer, 404: errorResponses[400], ...errorResponses },
      },
      onRequest: [app.requireRole('responder'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const { by, ...verdict } = req.body;
      return episodes.team(req.params.id, verdict, actorOf(req.principal, by));
    },
  );
};
