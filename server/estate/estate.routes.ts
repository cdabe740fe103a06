import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/common.schemas.js';
import { actorOf } from '../http/auth.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import {
  EstateOverrides,
  EstateView,
  JobAccepted,
  JobIdParams,
  JobView,
  OverridesView,
} from './estate.schemas.js';
import type { EstateService } from './estate.service.js';
import { suggestionsRoutes } from './suggestions.routes.js';

export const estateRoutes: FastifyPluginAsyncTypebox<{
  estate: EstateService;
  mode: () => Mode;
}> = async (app, { estate, mode }) => {
  const open = requireMode(mode, 'configuring');
  app.post(
    '/discover',
    {
      schema: {
        summary: 'Rebuild the estate from the connectors; runs as a job',
        tags: ['estate'],
        response: { 202: JobAccepted, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req, reply) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const { job_id } = estate.discover(actorOf(req.principal));
      return reply.code(202).send({ job_id });
    },
  );
  app.get(
    '/jobs/:id',
    {
      schema: {
        summary: 'A background job (discovery)',
        tags: ['estate'],
        params: JobIdParams,
        response: { 200: JobView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) => estate.job(req.params.id),
  );
  app.get(
    '/estate',
    {
      schema: {
        summary: 'Services, links and how each was made; per-connector status',
        tags: ['estate'],
        response: { 200: EstateView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => estate.view(),
  );
  app.get(
    '/estate/overrides',
    {
      schema: {
        summary: 'Hand-made services, placed links and ignored names',
        tags: ['estate'],
        response: { 200: OverridesView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => estate.overrides(),
  );
  app.put(
    '/estate/overrides',
    {
      schema: {
        summary: 'Replace the estate overrides',
        tags: ['estate'],
        body: EstateOverrides,
        response: { 200: OverridesView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return estate.putOverrides(req.body, actorOf(req.principal));
    },
  );
  await app.register(suggestionsRoutes, { estate, mode });
};
