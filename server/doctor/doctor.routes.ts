import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
// app.requireRole is declared by the auth plugin's module augmentation.
import type {} from '../http/auth.js';
import { errorResponses } from '../http/common.schemas.js';
import type { Doctor } from './doctor.service.js';

const Status = Type.Union([Type.Literal('ok'), Type.Literal('warn'), Type.Literal('fail')]);
export const DoctorReportBody = Type.Object({
  status: Status,
  checked_at: Type.String(),
  cached: Type.Boolean(),
  checks: Type.Array(
    Type.Object({
      area: Type.String(),
      check: Type.String(),
      status: Status,
      detail: Type.String(),
      hint: Type.String(),
      duration_ms: Type.Integer(),
    }),
  ),
});

export const doctorRoutes: FastifyPluginAsyncTypebox<{ doctor: Doctor }> = async (
  app,
  { doctor },
) => {
  app.get(
    '/doctor',
    {
      schema: {
        summary: 'Health check by check (cached 15 s; fresh=1 re-runs)',
        tags: ['status'],
        querystring: Type.Object(
          { fresh: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')])) },
          { additionalProperties: false },
        ),
        response: { 200: DoctorReportBody, ...errorResponses },
      },
      onRequest: app.requireRole('viewer'),
    },
    async (req) => doctor.report(req.query.fresh === '1'),
  );
};
