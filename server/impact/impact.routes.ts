import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/common.schemas.js';
import { actorOf } from '../http/auth.js';
import { ImpactBody, ImpactFigures } from './impact.schemas.js';
import type { ImpactService } from './impact.service.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';

export const impactRoutes: FastifyPluginAsyncTypebox<{
  impact: ImpactService;
  mode: () => Mode;
}> = async (app, { impact, mode }) => {
  const open = requireMode(mode, 'configuring');
  app.get(
    '/impact',
    {
      schema: {
        summary: 'Impact figures (0 = not counted)',
        tags: ['impact'],
        response: { 200: ImpactBody, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async () => impact.get(),
  );
  app.put(
    '/impact',
    {
      schema: {
        summary: 'Replace the impact figures',
        tags: ['impact'],
        body: ImpactFigures,
        response: { 200: ImpactBody, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return impact.put(req.body, actorOf(req.principal));
    },
  );
};
