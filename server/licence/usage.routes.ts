import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { MAX_PINS, type Coverage } from './coverage.js';

const PinBody = Type.Object(
  {
    /** the services always covered, replacing the pinned list whole */
    pinned: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_PINS }),
  },
  { additionalProperties: false },
);

const PinAnswer = Type.Object({
  pinned: Type.Array(Type.String()),
  added: Type.Array(Type.String()),
  removed: Type.Array(Type.String()),
  /** the licensed number of services, null for unlimited */
  services: Type.Union([Type.Integer(), Type.Null()]),
  services_used: Type.Integer(),
  /** counted services beyond the limit: recorded, not investigated */
  uncovered: Type.Integer(),
});

/** Service coverage and usage: licence endpoints, open in every mode like the licence's own. */
export const licenceUsageRoutes: FastifyPluginAsyncTypebox<{ coverage: Coverage }> = async (
  app,
  { coverage },
) => {
  app.put(
    '/licence/services',
    {
      schema: {
        summary: 'Pin the services the licence always covers (409 with more pins than the limit)',
        tags: ['licence'],
        body: PinBody,
        response: { 200: PinAnswer, ...errorResponses, 409: ErrorBody },
      },
      onRequest: [app.requireRole('owner')],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const done = await coverage.pin(req.body.pinned, actorOf(req.principal).name);
      const s = coverage.state();
      return {
        ...done,
        services: s.limit,
        services_used: s.counted.length,
        uncovered: s.uncovered.length,
      };
    },
  );
};
