// The pagerduty kind: resolved incidents counted through PagerDuty's REST API v2, read-only.
//
// Count: GET /incidents?statuses[]=resolved&since=…&until=…&total=true&limit=1. PagerDuty
// filters since/until on when an incident was created, and refuses a range over six months,
// so a longer window is asked in slices. `total` is documented as null unless total=true
// is asked for; should it still be null the pages are walked (offset/limit while `more`).
// Health: GET /abilities, which any REST API key may read.
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
import { readSecret, readStringList } from './settings.js';

const PRODUCT = 'PagerDuty';
/** Under PagerDuty's six-month limit on since/until, whatever the months. */
export const SLICE_DAYS = 180;
const DAY_MS = 86_400_000;
const PAGE = 100;
/** PagerDuty's classic pagination stops at offset 10,000. */
const MAX_OFFSET = 10_000;

/** The window cut into slices of at most SLICE_DAYS, oldest first. */
export function slices(window: Window): Window[] {
  const out: Window[] = [];
  let from = window.since.getTime();
  const end = window.until.getTime();
  while (from < end) {
    const to = Math.min(end, from + SLICE_DAYS * DAY_MS);
    out.push({ since: new Date(from), until: new Date(to) });
    from = to;
  }
  return out;
}

function createPagerdutyClient(settings: ResolvedSettings) {
  const token = readSecret(settings, 'api_token');
  if (token === undefined) throw new Error('setting api_token is required');
  headerSafe(token.reveal(), 'api_token');
  const services = readStringList(settings, 'service_ids');
  const api = createJsonApi(settings, {
    product: PRODUCT,
    credential: 'api_token',
    headers: () => ({
      accept: 'application/vnd.pagerduty+json;version=2',
      authorization: `Token token=${token.reveal()}`,
    }),
  });

  function query(w: Window, limit: number, offset: number, total: boolean): URLSearchParams {
    const q = new URLSearchParams();
    q.append('statuses[]', 'resolved');
    for (const s of services) q.append('service_ids[]', s);
    q.set('since', w.since.toISOString());
    q.set('until', w.until.toISOString());
    q.set('time_zone', 'UTC');
    q.set('limit', String(limit));
    q.set('offset', String(offset));
    if (total) q.set('total', 'true');
    return q;
  }

  async function countSlice(w: Window, signal: AbortSignal): Promise<{ n: number; pages: number }> {
    const first = await api.json('/incidents', query(w, 1, 0, true), signal);
    const total = pick(first, 'total');
    if (typeof total === 'number') return { n: countOf(total, PRODUCT, 'total'), pages: 1 };
    // No total: walk the pages and count what they hold.
    let n = 0;
    let pages = 1;
    for (let offset = 0; ; offset += PAGE) {
      if (offset >= MAX_OFFSET)
        throw new HistoryApiError(
          `${PRODUCT} holds more than ${String(MAX_OFFSET)} resolved incidents in a slice and gave no total`,
          200,
        );
      const page = await api.json('/incidents', query(w, PAGE, offset, false), signal);
      pages += 1;
      const incidents = pick(page, 'incidents');
      if (!Array.isArray(incidents))
        throw new HistoryApiError(`${PRODUCT} answered a page without incidents`, 200);
      n += incidents.length;
      if (pick(page, 'more') !== true || incidents.length === 0) break;
    }
    return { n, pages };
  }

  return historyClient(
    'pagerduty',
    async (signal) => {
      const body = await api.json('/abilities', null, signal);
      const abilities = pick(body, 'abilities');
      if (!Array.isArray(abilities))
        throw new HistoryApiError(`${PRODUCT} at ${api.origin} answered without abilities`, 200);
      return `${PRODUCT} at ${api.origin} answered (${String(abilities.length)} abilities)`;
    },
    async (window, signal): Promise<ResolvedCount> => {
      let count = 0;
      let requests = 0;
      const parts = slices(window);
      for (const w of parts) {
        const { n, pages } = await countSlice(w, signal);
        count += n;
        requests += pages;
      }
      return {
        count,
        detail: `GET /incidents statuses[]=resolved, ${String(parts.length)} slice(s), ${String(requests)} request(s)`,
      };
    },
  );
}

export const pagerdutyKind: ConnectorKind = {
  kind: 'pagerduty',
  title: 'PagerDuty',
  description:
    'Counts resolved PagerDuty incidents for lookback through the REST API v2 (read-only: GET /incidents with total=true).',
  capabilities: ['history'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      default: 'https://api.pagerduty.com',
      description:
        'The REST API address: https://api.pagerduty.com, or https://api.eu.pagerduty.com.',
    },
    {
      name: 'api_token',
      type: 'secret',
      required: true,
      description:
        'A read-only REST API key (Integrations → API Access Keys), sent as Token token=….',
    },
    {
      name: 'service_ids',
      type: 'string_list',
      required: false,
      description: 'Count only these PagerDuty services (IDs such as PIJ90N7); all when empty.',
    },
  ],
  operations: [RESOLVED_COUNT],
  create: createPagerdutyClient,
};
