// GET /v1/estate/suggestions, POST /v1/estate/suggestions/confirm and /dismiss; registered
// by estateRoutes, so they share its prefix and mode gate.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/common.schemas.js';
import { actorOf } from '../http/auth.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import {
  ConfirmSuggestion,
  DismissSuggestion,
  SuggestionDecided,
  SuggestionList,
} from './estate.schemas.js';
import type { EstateService } from './estate.service.js';

export const suggestionsRoutes: FastifyPluginAsyncTypebox<{
  estate: EstateService;
  mode: () => Mode;
}> = async (app, { estate, mode }) => {
  const open = requireMode(mode, 'configuring');
  app.get(
    '/estate/suggestions',
    {
      schema: {
        summary: 'Inferred dependencies: links the evidence suggests, with the evidence',
        tags: ['estate'],
        response: { 200: SuggestionList, ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => estate.suggestions(),
  );
  app.post(
    '/estate/suggestions/confirm',
    {
      schema: {
        summary: 'Confirm a suggestion: it becomes a placed link',
        tags: ['estate'],
        body: ConfirmSuggestion,
        response: { 200: SuggestionDecided, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return estate.confirmSuggestion(req.body.id, actorOf(req.principal));
    },
  );
  app.post(
    '/estate/suggestions/dismiss',
    {
      schema: {
        summary: 'Dismiss a suggestion for good',
        tags: ['estate'],
        body: DismissSuggestion,
        response: { 200: SuggestionDecided, ...errorResponses },
      },
      onRequest: [app.requireRole('admin'), open],
    },
    async (req) => {
      if (req.principal === null) throw new Error('requireRole let an anonymous call through');
      return estate.dismissSuggestion(req.body.id, req.body.reason ?? null, actorOf(req.principal));
    },
  );
};
