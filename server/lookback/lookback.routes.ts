import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { actorOf } from '../http/auth.js';
import { assertMode, requireMode } from '../http/operating-gate.js';
import { InvalidInputError } from '../shared/errors.js';
import type { Mode } from '../shared/mode.js';
import {
  LookbackBody,
  LookbackReport,
  LookbackView,
  MAX_DAYS,
  MIN_DAYS,
} from './lookback.schemas.js';
import type { LookbackService } from './lookback.service.js';

const DAYS_RULE = `days must be an integer from ${String(MIN_DAYS)} to ${String(MAX_DAYS)}`;

export const lookbackRoutes: FastifyPluginAsyncTypebox<{
  lookback: LookbackService;
  mode: () => Mode;
}> = async (app, { lookback, mode }) => {
  app.get(
    '/lookback',
    {
      schema: {
        summary: 'The last lookback report and the connections that keep history',
        tags: ['lookback'],
        response: { 200: LookbackView, ...errorResponses },
      },
      // Reads what is stored, so it answers while configuring: the console can then say
      // which connection to add.
      onRequest: [app.requireRole('admin'), requireMode(mode, 'configuring')],
    },
    async () => lookback.view(),
  );
  app.post(
    '/lookback',
    {
      schema: {
        summary:
          'Count resolved incidents over the last {days} (7 to 365) from the connections that keep history; 409 when none does',
        tags: ['lookback'],
        body: LookbackBody,
        response: { 200: LookbackReport, ...errorResponses, 409: ErrorBody },
      },
      onRequest: app.requireRole('admin'),
      // The validator coerces types ("7" would pass as 7): text is refused before it does.
      preValidation: async (req) => {
        const days: unknown = (req.body as { days?: unknown } | null | undefined)?.days;
        if (days !== undefined && typeof days !== 'number')
          throw new InvalidInputError('invalid_input', `${DAYS_RULE}, not ${typeof days}`, {
            field: 'days',
          });
      },
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      // No history connection at all is the more useful answer (409), even while configuring;
      // with one, the count needs a working connection (architecture: 503 while configuring).
      lookback.requireHistory();
      assertMode(mode(), 'operating');
      return lookback.run(req.body.days, actorOf(req.principal));
    },
  );
};
