import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/common.schemas.js';
import type { Metrics } from './metrics.js';

/** GET /metrics: viewer role, so a Prometheus scrape with a bearer token works. */
export const metricsRoutes: FastifyPluginAsyncTypebox<{ metrics: Metrics }> = async (app, { metrics }) => {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', {
    schema: { summary: 'Prometheus metrics', tags: ['status'], response: { 200: Type.String(), ...errorResponses } },
    onRequest: app.requireRole('viewer'),
  }, async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.render());
  });
};
