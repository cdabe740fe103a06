import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthBody, StatusBody } from './status.schemas.js';
import type { StatusService } from './status.service.js';

/** GET /health: unversioned, anyone. */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    { schema: { summary: 'Liveness', tags: ['status'], response: { 200: HealthBody } } },
    async () => ({ status: 'ok' as const }),
  );
};

/** GET /v1/status: anyone, every mode. */
export const statusRoutes: FastifyPluginAsyncTypebox<{ status: StatusService }> = async (
  app,
  { status },
) => {
  app.get(
    '/status',
    {
      schema: {
        summary: 'Version, fingerprint, mode, licence, setup progress, ledger head, models',
        tags: ['status'],
        response: { 200: StatusBody },
      },
    },
    async () => status.status(),
  );
};
