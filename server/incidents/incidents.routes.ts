import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../http/common.schemas.js';
import { InvalidInputError } from '../shared/errors.js';
import { INCIDENT_STATUSES, type IncidentStatus } from './incidents.store.js';
import { IncidentBody, IncidentListBody } from './incidents.schemas.js';
import type { IncidentsService } from './incidents.service.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';

/** `status=open,monitoring`: every value must be a status; 400 names the field. */
export function parseStatuses(csv: string | undefined): IncidentStatus[] {
  if (csv === undefined || csv.trim() === '') return [];
  const values = csv.split(',').map((v) => v.trim());
  for (const v of values) {
    if (!(INCIDENT_STATUSES as readonly string[]).includes(v)) {
      throw new InvalidInputError(
        'invalid_input',
        `status ${JSON.stringify(v)} is not an incident status; use a comma-separated list of ${INCIDENT_STATUSES.join(', ')}`,
        { field: 'status' },
      );
    }
  }
  return [...new Set(values)] as IncidentStatus[];
}

export const incidentsRoutes: FastifyPluginAsyncTypebox<{
  incidents: IncidentsService;
  mode: () => Mode;
}> = async (app, { incidents, mode }) => {
  const open = requireMode(mode, 'configuring');
  app.get(
    '/incidents',
    {
      schema: {
        summary: 'Incidents, newest first; status filters by a comma-separated list',
        tags: ['incidents'],
        querystring: Type.Object(
          {
            status: Type.Optional(Type.String({ maxLength: 200 })),
            limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: IncidentListBody,
          ...errorResponses,
        },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) =>
      incidents.list(parseStatuses(req.query.status), req.query.limit, req.query.offset),
  );
  app.get(
    '/incidents/:id',
    {
      schema: {
        summary: 'One incident: lifecycle, episodes, causes, fixes, history',
        tags: ['incidents'],
        params: Type.Object({
          id: Type.String({ pattern: '^in-[0-9TZ]+-[0-9a-f]+$', maxLength: 64 }),
        }),
        response: { 200: IncidentBody, 404: errorResponses[400], ...errorResponses },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async (req) => incidents.get(req.params.id),
  );
};
