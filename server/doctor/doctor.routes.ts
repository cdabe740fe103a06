import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
// app.requireRole is declared by the auth plugin's module augmentation.
import type {} from '../http/auth.js';
import { errorResponses } from '../http/common.schemas.js';
import { DoctorReportBody } from './doctor.schemas.js';
import type { Doctor } from './doctor.service.js';

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
