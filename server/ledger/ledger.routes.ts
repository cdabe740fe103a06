import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
// app.requireRole is declared by the auth plugin's module augmentation.
import type {} from '../http/auth.js';
import { errorResponses } from '../http/common.schemas.js';
import type { LedgerReader } from './ledger-read.service.js';
import { LedgerList, LedgerQuery, VerifyQuery, VerifyReportBody } from './ledger.schemas.js';

export const ledgerRoutes: FastifyPluginAsyncTypebox<{ reader: LedgerReader }> = async (
  app,
  { reader },
) => {
  app.get(
    '/ledger',
    {
      schema: {
        summary: 'Read the audit log',
        tags: ['audit'],
        querystring: LedgerQuery,
        response: { 200: LedgerList, ...errorResponses },
      },
      onRequest: app.requireRole('viewer'),
    },
    async (req) => reader.list(req.query),
  );

  app.get(
    '/ledger/verify',
    {
      schema: {
        summary: 'Verify hash chain, sequence, segment digests and seals',
        tags: ['audit'],
        querystring: VerifyQuery,
        response: { 200: VerifyReportBody, ...errorResponses },
      },
      onRequest: app.requireRole('viewer'),
    },
    async (req) =>
      reader.verify(req.query.checkpoint !== undefined ? { checkpoint: req.query.checkpoint } : {}),
  );
};
