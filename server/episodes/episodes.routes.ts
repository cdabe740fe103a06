import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/common.schemas.js';
import type { EpisodesService } from './episodes.service.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

const Running = Type.Object({
  episode_id: Type.String(),
  service: Type.String(),
  alerts: Type.Array(Type.String()),
  status: Type.String(),
  step: Type.String(),
  t_open: Type.String(),
});

export const LiveBody = Type.Object({ seq: Type.Integer(), running: Type.Array(Running) });

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
  live: Type.Boolean(),
  status: Type.Optional(Type.String()),
  step: Type.Optional(Type.String()),
  findings: Type.Optional(Type.Array(Type.Unknown())),
  hypotheses: Type.Optional(Type.Array(Type.Unknown())),
  timeline: Type.Array(TimelineEvent),
  more: Type.Boolean(),
});

export const episodesRoutes: FastifyPluginAsyncTypebox<{ episodes: EpisodesService }> = async (
  app,
  { episodes },
) => {
  app.get(
    '/live',
    {
      schema: {
        summary: 'Running episodes; seq moves on every change',
        tags: ['incidents'],
        response: { 200: LiveBody, ...errorResponses },
      },
      onRequest: app.requireRole('viewer'),
    },
    async () => episodes.live(),
  );

  app.get(
    '/episodes/:id',
    {
      schema: {
        summary:
          'An episode: its record when closed, its live view while running; after_seq for the timeline since',
        tags: ['incidents'],
        params: Type.Object({
          id: Type.String({ pattern: '^ep-[0-9TZ]+-[0-9a-f]+$', maxLength: 64 }),
        }),
        querystring: Type.Object(
          { after_seq: Type.Optional(Type.Integer({ minimum: 0 })) },
          { additionalProperties: false },
        ),
        response: { 200: EpisodeBody, 404: errorResponses[400], ...errorResponses },
      },
      onRequest: app.requireRole('viewer'),
    },
    async (req) => episodes.get(req.params.id, req.query.after_seq),
  );
};
