import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { errorResponses } from '../http/common.schemas.js';
import { noneMatch, strongTag } from '../http/etag.js';
import { type EpisodesService, type TeamVerdict } from './episodes.service.js';
import { EpisodeBody, ListBody, LiveBody, TeamAnswer, TeamBody } from './episodes.schemas.js';
import { ListQuery } from './list.params.js';
import type { EpisodeList } from './list.service.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';

const EpisodeId = Type.String({ pattern: '^ep-[0-9TZ]+-[0-9a-f]+$', maxLength: 64 });

// The body's verdicts are the service's own.
void (TeamBody.properties.verdict.anyOf satisfies { const: TeamVerdict }[]);

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
