// The opsgenie kind: resolved incidents counted through Opsgenie's Incident API, read-only.
//
// Count: GET /v1/incidents?query=status:resolved AND createdAt>=… AND createdAt<…, at most
// 100 a page (Opsgenie's limit). Where the answer carries `totalCount` that is the count;
// otherwise the pages are walked by offset until a short page or no `paging.next`.
// Opsgenie's search matches createdAt (epoch milliseconds), not the time of resolution.
// Health: GET /v2/account, the cheapest documented read of a key's account.
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

const PRODUCT = 'Opsgenie';
const PAGE = 100;
/** A guard against a server that keeps answering full pages. */
const MAX_PAGES = 500;

/** The search query: resolved incidents created in the window, and the operator's filter. */
export function opsgenieQuery(w: Window, filter: string | undefined): string {
  const q = `status:resolved AND createdAt>=${String(w.since.getTime())} AND createdAt<${String(w.until.getTime())}`;
  return filter === undefined ? q : `${q} AND (${filter})`;
}

function createOpsgenieClient(settings: ResolvedSettings) {
  const key = readSecret(settings, 'api_key');
  if (key === undefined) throw new Error('setting api_key is required');
  headerSafe(key.reveal(), 'api_key');
  const filter = readString(settings, 'query');
  const api = createJsonApi(settings, {
    product: PRODUCT,
    credential: 'api_key',
    headers: () => ({ authorization: `GenieKey ${key.reveal()}` }),
  });

  async function count(w: Window, signal: AbortSignal): Promise<ResolvedCount> {
    let n = 0;
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({
        query: opsgenieQuery(w, filter),
        offset: String(page * PAGE),
        limit: String(PAGE),
        sort: 'createdAt',
        order: 'asc',
      });
      const body = await api.json('/v1/incidents', q, signal);
      const total = pick(body, 'totalCount');
      if (page === 0 && typeof total === 'number')
        return {
          count: countOf(total, PRODUCT, 'totalCount'),
          detail: 'GET /v1/incidents status:resolved, totalCount',
        };
      const data = pick(body, 'data');
      if (!Array.isArray(data))
        throw new HistoryApiError(`${PRODUCT} answered a page without data`, 200);
      n += data.length;
      if (data.length < PAGE || typeof pick(body, 'paging', 'next') !== 'string')
        return {
          count: n,
          detail: `GET /v1/incidents status:resolved, ${String(page + 1)} page(s)`,
        };
    }
    throw new HistoryApiError(
      `${PRODUCT} kept answering full pages past ${String(MAX_PAGES * PAGE)} incidents`,
      200,
    );
  }

  return historyClient(
    'opsgenie',
    async (signal) => {
      const body = await api.json('/v2/account', null, signal);
      const name = pick(body, 'data', 'name');
      if (typeof name !== 'string')
        throw new HistoryApiError(`${PRODUCT} at ${api.origin} answered without an account`, 200);
      return `${PRODUCT} account ${name} at ${api.origin}`;
    },
    count,
  );
}

export const opsgenieKind: ConnectorKind = {
  kind: 'opsgenie',
  title: 'Opsgenie',
  description:
    'Counts resolved Opsgenie incidents for lookback through the Incident API (read-only: GET /v1/incidents).',
  capabilities: ['history'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      default: 'https://api.opsgenie.com',
      description: 'The API address: https://api.opsgenie.com, or https://api.eu.opsgenie.com.',
    },
    {
      name: 'api_key',
      type: 'secret',
      required: true,
      description:
        'An API key with read access (an API integration, or Settings → API key management), sent as GenieKey ….',
    },
    {
      name: 'query',
      type: 'string',
      required: false,
      description: 'An Opsgenie search added to the count, e.g. tag:production; none when empty.',
    },
  ],
  operations: [RESOLVED_COUNT],
  create: createOpsgenieClient,
};
