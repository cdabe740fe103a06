// The servicenow kind: resolved incidents counted through ServiceNow's Aggregate API,
// read-only.
//
// Count: GET /api/now/stats/incident?sysparm_count=true&sysparm_query=resolved_atBETWEEN…,
// which answers {result: {stats: {count: "42"}}} (a string) without any record.
// The window's edges are given with gs.dateGenerate, which ServiceNow reads in the user's
// time zone, so an account in UTC counts the window exactly.
// Health: GET /api/now/table/incident?sysparm_limit=1&sysparm_fields=sys_id, which also
// proves the account may read the table counted.
import type { ConnectorKind, ResolvedSettings } from '../kind.js';
import {
  countOf,
  createJsonApi,
  headerSafe,
  historyClient,
  HistoryApiError,
  pick,
  RESOLVED_COUNT,
  type ResolvedCount,
  type Window,
} from './history-api.js';
import { readSecret, readString } from './settings.js';

const PRODUCT = 'ServiceNow';

const generate = (d: Date): string => {
  const iso = d.toISOString();
  return `javascript:gs.dateGenerate('${iso.slice(0, 10)}','${iso.slice(11, 19)}')`;
};

/** The encoded query: resolved in [since, until), and the operator's own filter. */
export function servicenowQuery(w: Window, extra: string | undefined): string {
  // BETWEEN includes its upper edge; one second less keeps the window half-open.
  const last = new Date(w.until.getTime() - 1000);
  const q = `resolved_atBETWEEN${generate(w.since)}@${generate(last)}`;
  return extra === undefined ? q : `${q}^${extra}`;
}

function createServicenowClient(settings: ResolvedSettings) {
  const user = readString(settings, 'user');
  const password = readSecret(settings, 'password');
  const bearer = readSecret(settings, 'bearer_token');
  if (bearer !== undefined && (user !== undefined || password !== undefined))
    throw new Error('set either bearer_token or user/password, not both');
  if (bearer === undefined && (user === undefined || password === undefined))
    throw new Error('set user and password, or bearer_token');
  if (bearer !== undefined) headerSafe(bearer.reveal(), 'bearer_token');
  const table = readString(settings, 'table') ?? 'incident';
  if (!/^[a-z][a-z0-9_]{0,79}$/.test(table))
    throw new Error('setting table must be a table name such as incident');
  const extra = readString(settings, 'query');
  const api = createJsonApi(settings, {
    product: PRODUCT,
    credential: bearer === undefined ? 'user and password' : 'bearer_token',
    headers: () => ({
      authorization:
        bearer !== undefined
          ? `Bearer ${bearer.reveal()}`
          : `Basic ${Buffer.from(`${user ?? ''}:${password?.reveal() ?? ''}`, 'utf8').toString('base64')}`,
    }),
  });

  return historyClient(
    'servicenow',
    async (signal) => {
      const q = new URLSearchParams({ sysparm_limit: '1', sysparm_fields: 'sys_id' });
      const body = await api.json(`/api/now/table/${table}`, q, signal);
      if (!Array.isArray(pick(body, 'result')))
        throw new HistoryApiError(`${PRODUCT} at ${api.origin} answered without a result`, 200);
      return `${PRODUCT} at ${api.origin}: table ${table} readable`;
    },
    async (window, signal): Promise<ResolvedCount> => {
      const q = new URLSearchParams({
        sysparm_count: 'true',
        sysparm_query: servicenowQuery(window, extra),
      });
      const body = await api.json(`/api/now/stats/${table}`, q, signal);
      return {
        count: countOf(pick(body, 'result', 'stats', 'count'), PRODUCT, 'result.stats.count'),
        detail: `GET /api/now/stats/${table} sysparm_count=true`,
      };
    },
  );
}

export const servicenowKind: ConnectorKind = {
  kind: 'servicenow',
  title: 'ServiceNow',
  description:
    'Counts resolved ServiceNow incidents for lookback through the Aggregate API (read-only: GET /api/now/stats/incident).',
  capabilities: ['history'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'The instance: https://<instance>.service-now.com.',
    },
    {
      name: 'user',
      type: 'string',
      required: false,
      description:
        'User for basic authentication (with password); a user with read access to the table.',
    },
    {
      name: 'password',
      type: 'secret',
      required: false,
      description: 'Password for basic authentication.',
    },
    {
      name: 'bearer_token',
      type: 'secret',
      required: false,
      description: 'An OAuth access token sent as Bearer, instead of user and password.',
    },
    {
      name: 'table',
      type: 'string',
      required: false,
      default: 'incident',
      description: 'The table counted (incident, or a table extending it).',
    },
    {
      name: 'query',
      type: 'string',
      required: false,
      description:
        'An encoded query added to the count, e.g. assignment_group.name=Ops; none when empty.',
    },
  ],
  operations: [RESOLVED_COUNT],
  create: createServicenowClient,
};
