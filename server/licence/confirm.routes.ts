// POST /v1/licence/check and POST /v1/licence/redeem (owner): open in every mode, as the
// other licence endpoints are, since setup is exactly when they are needed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../http/auth.js';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import type { Confirmation } from './confirm.js';
import type { Redeemer } from './redeem.js';

const View = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

export const CheckAnswer = Type.Object({
  result: Type.String(),
  confirmed: Type.Boolean(),
  detail: Type.String(),
  mode: Type.String(),
  latency_ms: Type.Integer(),
  authority_time: Nullable(Type.String()),
  latest_serial: Nullable(Type.Integer()),
  licence: View,
});

export const RedeemBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 2048 }) },
  { additionalProperties: false },
);
export const RedeemAnswer = Type.Object({
  via: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  licence: View,
});

export const confirmRoutes: FastifyPluginAsyncTypebox<{
  confirm: Confirmation;
  redeemer: Redeemer;
}> = async (app, { confirm, redeemer }) => {
  app.post(
    '/licence/check',
    {
      schema: {
        summary: 'Confirm the licence now with the licence authority (audited; 30 s at most)',
        tags: ['licence'],
        response: { 200: CheckAnswer, ...errorResponses },
      },
      onRequest: [app.requireRole('owner')],
    },
    async () => confirm.checkNow(),
  );
  app.post(
    '/licence/redeem',
    {
      schema: {
        summary:
          'Redeem a trial code: SVCT-XXXX-XXXX online, or a long SVCT1- or SVCT2- code offline',
        tags: ['licence'],
        body: RedeemBody,
        response: { 200: RedeemAnswer, ...errorResponses, 409: ErrorBody },
      },
      onRequest: [app.requireRole('owner')],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return redeemer.redeem(req.body.code, actorOf(req.principal).name);
    },
  );
};
