import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { PolicyInput, PolicyView } from './policy.schemas.js';
import type { PolicyService } from './policy.service.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';

export const policyRoutes: FastifyPluginAsyncTypebox<{
  policy: PolicyService;
  mode: () => Mode;
}> = async (app, { policy, mode }) => {
  const open = requireMode(mode, 'configuring');
  app.get(
    '/policy',
    {
      schema: {
        summary: 'The policy document (grouping, maintenance windows, inhibition)',
        tags: ['policy'],
        response: { 200: PolicyView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => policy.get(),
  );
  app.put(
    '/policy',
    {
      schema: {
        summary: 'Replace the policy document; 409 when it is managed in a file',
        tags: ['policy'],
        body: PolicyInput,
        response: { 200: PolicyView, ...errorResponses, 409: ErrorBody },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return policy.put(req.body, actorOf(req.principal));
    },
  );
};
