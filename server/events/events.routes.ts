import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../http/common.schemas.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import { IngestEventBody, IngestedEvent } from './events.schemas.js';
import type { EventsService } from './events.service.js';

export const eventsRoutes: FastifyPluginAsyncTypebox<{
  events: EventsService;
  mode: () => Mode;
}> = async (app, { events, mode }) => {
  app.post(
    '/events',
    {
      schema: {
        summary: 'Append an event to the ledger',
        tags: ['ingest'],
        body: IngestEventBody,
        response: { 201: IngestedEvent, ...errorResponses },
      },
      onRequest: [app.requireIngest(), requireMode(mode, 'configuring')],
    },
    async (req, reply) => reply.code(201).send(await events.ingest(req.body)),
  );
};
