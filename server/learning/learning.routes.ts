import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorBody, errorResponses } from '../http/common.schemas.js';
import { actorOf } from '../http/auth.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import {
  DecideAnswer,
  DecideBody,
  LabelBody,
  LabelView,
  LearnedView,
  LearningView,
  PatternParams,
} from './learning.schemas.js';
import type { LearningService } from './learning.service.js';

/** Unknown episode or pattern (404); an episode not closed, a team verdict, a state (409). */
const withConflict = { ...errorResponses, 404: ErrorBody, 409: ErrorBody } as const;

export const learningRoutes: FastifyPluginAsyncTypebox<{
  learning: LearningService;
  mode: () => Mode;
}> = async (app, { learning, mode }) => {
  const open = requireMode(mode, 'configuring');
  app.get(
    '/learning',
    {
      schema: {
        summary: 'Labels counted, precision per cause and pack, demotions, calibration',
        tags: ['learning'],
        response: { 200: LearningView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => learning.summary(),
  );
  app.post(
    '/learning/label',
    {
      schema: {
        summary: "Label an episode's diagnosis right or wrong, from outside",
        tags: ['learning'],
        body: LabelBody,
        response: { 200: LabelView, ...withConflict },
      },
      onRequest: [app.requireRole('responder'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return learning.label(req.body, actorOf(req.principal));
    },
  );
  app.get(
    '/learned',
    {
      schema: {
        summary: 'Patterns learned from labelled episodes',
        tags: ['learning'],
        response: { 200: LearnedView, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => learning.patterns(),
  );
  app.post(
    '/learned/:id',
    {
      schema: {
        summary: 'Promote, reject, disable, enable or delete a learned pattern',
        tags: ['learning'],
        params: PatternParams,
        body: DecideBody,
        response: { 200: DecideAnswer, ...withConflict },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return learning.decide(req.params.id, req.body.action, actorOf(req.principal));
    },
  );
};
