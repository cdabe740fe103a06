import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { MAX_PINS, type Coverage } from './coverage.js';
import type { Usage } from './usage.js';

const PinBody = Type.Object(
  {
    /** the services always covered, replacing the pinned list whole */
    pinned: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_PINS }),
  },
  { additionalProperties: false },
);

const UsageQuery = Type.Object(
  {
    /** hashed: list the counted services as HMAC-SHA256(licence_id, service) */
    ids: Type.Optional(Type.Literal('hashed')),
  },
  { additionalProperties: false },
);

const UsageEnvelope = Type.Object({
  /** svc-usage/1 */
  format: Type.String(),
  /** the statement's JSON bytes, base64url: what is signed */
  payload: Type.String(),
  signatures: Type.Array(
    Type.Object({ alg: Type.String(), kid: Type.String(), sig: Type.String() }),
  ),
});

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
export const licenceUsageRoutes: FastifyPluginAsyncTypebox<{
  coverage: Coverage;
  usage: Usage;
}> = async (app, { coverage, usage }) => {
  app.get(
    '/licence/usage',
    {
      schema: {
        summary: 'A signed usage statement (svc-usage/1); service names only hashed, when asked',
        tags: ['licence'],
        querystring: UsageQuery,
        response: { 200: UsageEnvelope, ...errorResponses, 404: ErrorBody },
      },
      onRequest: [app.requireRole('admin')],
    },
    async (req, reply) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const { envelope, sha256 } = await usage.export(
        { hashedIds: req.query.ids === 'hashed' },
        actorOf(req.principal).name,
      );
      void reply.header(
        'content-disposition',
        `attachment; filename="svc-usage-${sha256.slice(0, 12)}.json"`,
      );
      return { ...envelope, signatures: [...envelope.signatures] };
    },
  );
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
