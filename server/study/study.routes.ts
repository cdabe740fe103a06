import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { actorOf } from '../http/auth.js';
import { requireMode } from '../http/operating-gate.js';
import { InvalidInputError } from '../shared/errors.js';
import type { Mode } from '../shared/mode.js';
import { StartBody, StudyStart, StudyView } from './study.schemas.js';
import { DEFAULT_MINUTES, type StudyService } from './study.service.js';

export const studyRoutes: FastifyPluginAsyncTypebox<{
  study: StudyService;
  mode: () => Mode;
}> = async (app, { study, mode }) => {
  // A study reads through the connections: it needs a working one (architecture: operating).
  // What it learned, and stopping it, need none.
  const operating = requireMode(mode, 'operating');
  const open = requireMode(mode, 'configuring');
  app.get(
    '/study',
    {
      schema: {
        summary: 'The running study (step, service, cause, done, of) and the last per service',
        tags: ['study'],
        response: { 200: StudyView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => study.view(),
  );
  app.post(
    '/study',
    {
      schema: {
        summary: 'Start a timed, read-only study of the estate',
        tags: ['study'],
        body: StartBody,
        response: { 202: StudyStart, ...errorResponses, 409: ErrorBody },
      },
      onRequest: [app.requireRole('admin'), operating],
      preValidation: async (req) => {
        // No body at all is every default.
        req.body ??= {};
        const raw = req.body as Record<string, unknown>;
        // Only a JSON number: the validator would read "15" as 15 and true as 1.
        if (raw['minutes'] !== undefined && typeof raw['minutes'] !== 'number')
          throw new InvalidInputError('invalid_input', 'minutes must be an integer from 1 to 120', {
            field: 'minutes',
          });
      },
    },
    async (req, reply) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      const started = await study.start(
        req.body.minutes ?? DEFAULT_MINUTES,
        actorOf(req.principal),
      );
      return reply.code(202).send(started);
    },
  );
  app.post(
    '/study/stop',
    {
      schema: {
        summary: 'Stop the running study before its next cause',
        tags: ['study'],
        response: { 200: StudyView, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return study.stop(actorOf(req.principal));
    },
  );
};
