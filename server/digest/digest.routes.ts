import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import { MAX_DAYS, type Digest } from './digest.js';

const DigestQuery = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DAYS,
        description: 'whole UTC days ending today (so far); default 1',
      }),
    ),
  },
  { additionalProperties: false },
);

// The figures are named in docs/digest.md; the schema pins the parts a reader relies on.
const DigestBody = Type.Object(
  {
    first_day: Type.String(),
    last_day: Type.String(),
    days: Type.Integer(),
    from: Type.String(),
    to: Type.String(),
    partial: Type.Boolean(),
    markdown: Type.String(),
    chart_svg: Type.String(),
  },
  { additionalProperties: true },
);

export const digestRoutes: FastifyPluginAsyncTypebox<{
  digest: (options: { days?: number }) => Promise<Digest>;
  mode: () => Mode;
}> = async (app, { digest, mode }) => {
  app.get(
    '/digest',
    {
      schema: {
        summary:
          'The digest of the last days: incidents, what the service did, times, labels, ledger',
        tags: ['digest'],
        querystring: DigestQuery,
        response: { 200: DigestBody, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), requireMode(mode, 'configuring')],
    },
    async (req) => digest(req.query.days !== undefined ? { days: req.query.days } : {}),
  );
};
