// GET /v1/search/fields: what the query language can name in each list, so that consoles and
// scripts build queries (and suggestions) from the server's own field table.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { APPROVAL_FACETS, APPROVAL_QUERY_FIELDS } from '../approvals/index.js';
import { EPISODE_QUERY_FIELDS, FACETS } from '../episodes/index.js';
import { errorResponses } from '../http/common.schemas.js';
import { LEDGER_QUERY_FIELDS } from '../ledger/index.js';
import type { QueryFields } from '../shared/query-language.js';
import { requireMode } from '../http/operating-gate.js';
import type { Mode } from '../shared/mode.js';
import { SearchFieldsBody, type SearchList } from './search.schemas.js';

function describe(spec: QueryFields, facets: readonly string[]): SearchList {
  return {
    fields: Object.entries(spec.fields).map(([name, f]) => ({
      name,
      type: f.type,
      ...(f.values !== undefined && { values: [...f.values] }),
      ...(f.multi !== undefined && { multi: true }),
    })),
    facets: [...facets],
    data: spec.dataColumn !== undefined,
    time: spec.timeColumn,
    text: [...spec.textColumns],
  };
}

/** The ledger's fields, its `type` naming every catalogued event type. */
function describeLedger(eventTypes: readonly string[]) {
  const list = describe(LEDGER_QUERY_FIELDS, []);
  return {
    ...list,
    fields: list.fields.map((f) => (f.name === 'type' ? { ...f, values: [...eventTypes] } : f)),
  };
}

export const searchRoutes: FastifyPluginAsyncTypebox<{
  mode: () => Mode;
  /** The event catalogue's types, sorted. */
  eventTypes: readonly string[];
}> = async (app, { mode, eventTypes }) => {
  const open = requireMode(mode, 'configuring');
  const body = {
    episodes: describe(EPISODE_QUERY_FIELDS, FACETS),
    ledger: describeLedger(eventTypes),
    approvals: describe(APPROVAL_QUERY_FIELDS, APPROVAL_FACETS),
  };
  app.get(
    '/search/fields',
    {
      schema: {
        summary: 'The fields of each list for the query language, with enumerated values',
        tags: ['incidents'],
        response: {
          200: SearchFieldsBody,
          ...errorResponses,
        },
      },
      onRequest: [app.requireRole('viewer'), open],
    },
    async () => body,
  );
};
