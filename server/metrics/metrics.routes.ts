import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/common.schemas.js';
import type { Metrics } from './metrics.js';

/** GET /metrics: viewer role, so a Prometheus scrape with a bearer token works. */
export const metricsRoutes: FastifyPluginAsyncTypebox<{ metrics: Metrics }> = async (
  app,
  { metrics },
) => {
  // Requests (this one included) are counted by the server-wide onResponse hook in compose/app.ts;
  // a hook here as well counted every scrape twice.
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics',
        tags: ['status'],
        response: { 200: Type.String(), ...errorResponses },
      },
      onRequest: app.requireRole('viewer'),
    },
    async (_req, reply) => {
      return reply.type(metrics.registry.contentType).send(await metrics.render());
    },
  );
};
