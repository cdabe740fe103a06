// The four history kinds against a real local HTTP server that answers with exchanges
// recorded from each vendor's published API documentation (history-exchanges/*.json, with
// their sources): the requests each kind sends (path, query, auth header), the counts read,
// pagination, a refused credential, and a server that stops answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../shared/secret.js';
import type { ConnectorKind, ResolvedSettings } from '../kind.js';
import { RESOLVED_COUNT, type ResolvedCount } from './history-api.js';
import {
  recorded,
  replayServer,
  type Exchange,
  type Replay,
} from '../../testing/history-replay.js';
import { jiraServiceManagementKind } from './jira-service-management.js';
import { opsgenieKind } from './opsgenie.js';
import { pagerdutyKind, SLICE_DAYS } from './pagerduty.js';
import { servicenowKind } from './servicenow.js';

const TOKEN = 'tok-0123456789-s3cret';
const SINCE = '2026-01-01T00:00:00.000Z';
const UNTIL = '2026-12-01T00:00:00.000Z'; // 334 days: two PagerDuty slices
const WINDOW = { since: SINCE, until: UNTIL };

let server: Replay;
beforeAll(async () => {
  server = await replayServer();
});
afterAll(async () => {
  await server.close();
});

const client = (kind: ConnectorKind, settings: ResolvedSettings) =>
  kind.create({ url: server.url, ...settings });
const count = async (kind: ConnectorKind, settings: ResolvedSettings, ms = 5000) =>
  (await client(kind, settings).call(
    RESOLVED_COUNT,
    WINDOW,
    AbortSignal.timeout(ms),
  )) as ResolvedCount;
const reply = (e: Exchange | undefined) => {
  if (e === undefined) throw new Error('no such recorded exchange');
  return e.response;
};

/** Every recorded file names where its exchanges come from and what was left out. */
describe('the recorded exchanges', () => {
  it.each(['pagerduty', 'opsgenie', 'jira-service-management', 'servicenow'])('%s', (v) => {
    const r = recorded(v);
    expect(r.sources.length).toBeGreaterThan(0);
    for (const s of r.sources) expect(s).toMatch(/^https:\/\//);
    expect(r.trimmed.length).toBeGreaterThan(20);
  });
});

/** A server that never answers: the kind gives up when the signal fires. */
async function expectGivesUp(kind: ConnectorKind, settings: ResolvedSettings): Promise<void> {
  server.answer(() => 'hang');
  const started = Date.now();
  await expect(count(kind, settings, 300)).rejects.toThrow(/abort|timeout/i);
  await expect(client(kind, settings).health(AbortSignal.timeout(300))).rejects.toThrow(
    /abort|timeout/i,
  );
  expect(Date.now() - started).toBeLessThan(3000);
}

describe('pagerduty', () => {
  const ex = recorded('pagerduty').exchanges;
  const settings = { api_token: new Secret(TOKEN), service_ids: ['PIJ90N7'] };

  it('health reads /abilities with the token header', async () => {
    server.answer(() => reply(ex['abilities']));
    const h = await client(pagerdutyKind, settings).health(AbortSignal.timeout(5000));
    expect(h).toMatchObject({ ok: true, detail: expect.stringMatching(/5 abilities/) as string });
    const [req] = server.seen;
    expect(req?.path).toBe('/abilities');
    expect(req?.headers['authorization']).toBe(`Token token=${TOKEN}`);
    expect(req?.headers['accept']).toBe('application/vnd.pagerduty+json;version=2');
  });

  it('counts with total=true, one request per slice of at most six months', async () => {
    server.answer(() => reply(ex['incidents_total']));
    const r = await count(pagerdutyKind, settings);
    expect(r.count).toBe(27 * 2);
    expect(server.seen).toHaveLength(2);
    const [a, b] = server.seen;
    expect(a?.method).toBe('GET');
    expect(a?.path).toBe('/incidents');
    expect(a?.query.getAll('statuses[]')).toEqual(['resolved']);
    expect(a?.query.getAll('service_ids[]')).toEqual(['PIJ90N7']);
    expect(a?.query.get('total')).toBe('true');
    expect(a?.query.get('limit')).toBe('1');
    expect(a?.query.get('since')).toBe(SINCE);
    expect(a?.query.get('until')).toBe(b?.query.get('since'));
    expect(b?.query.get('until')).toBe(UNTIL);
    const span = Date.parse(a?.query.get('until') ?? '') - Date.parse(SINCE);
    expect(span).toBe(SLICE_DAYS * 86_400_000);
  });

  it('walks the pages (offset, limit, more) when no total is given', async () => {
    const page = ex['incidents_page_without_total']?.response.body as Record<string, unknown>;
    const incident = (page['incidents'] as unknown[])[0];
    server.answer((req) => {
      if (req.query.get('total') === 'true')
        return { status: 200, body: { ...page, incidents: [incident], limit: 1, total: null } };
      const offset = Number(req.query.get('offset'));
      // The first slice holds 230 incidents (three pages), the second 1.
      const first = req.query.get('since') === SINCE;
      const size = first ? Math.min(100, 230 - offset) : offset === 0 ? 1 : 0;
      const more = first && offset + 100 < 230;
      return {
        status: 200,
        body: { ...page, incidents: Array(size).fill(incident), offset, limit: 100, more },
      };
    });
    const r = await count(pagerdutyKind, settings);
    expect(r.count).toBe(231);
    const offsets = server.seen
      .filter((s) => s.query.get('total') === null)
      .map((s) => Number(s.query.get('offset')));
    expect(offsets).toEqual([0, 100, 200, 0]);
  });

  it('a refused token fails health with a detail that says what to do, never the token', async () => {
    server.answer(() => reply(ex['unauthorized']));
    const h = await client(pagerdutyKind, settings).health(AbortSignal.timeout(5000));
    expect(h.ok).toBe(false);
    expect(h.detail).toMatch(/PagerDuty refused the credential \(HTTP 401\): check api_token/);
    expect(h.detail).not.toContain(TOKEN);
    await expect(count(pagerdutyKind, settings)).rejects.toThrow(/HTTP 401/);
  });

  it('gives up on a server that stops answering', async () => {
    await expectGivesUp(pagerdutyKind, settings);
  });
});

describe('opsgenie', () => {
  const ex = recorded('opsgenie').exchanges;
  const settings = { api_key: new Secret(TOKEN), query: 'tag:production' };

  it('health reads /v2/account with the GenieKey header', async () => {
    server.answer(() => reply(ex['account']));
    const h = await client(opsgenieKind, settings).health(AbortSignal.timeout(5000));
    expect(h).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/account opsgenie/) as string,
    });
    expect(server.seen[0]?.path).toBe('/v2/account');
    expect(server.seen[0]?.headers['authorization']).toBe(`GenieKey ${TOKEN}`);
  });

  it('counts with totalCount in one request', async () => {
    server.answer(() => reply(ex['incidents_total']));
    const r = await count(opsgenieKind, settings);
    expect(r.count).toBe(1);
    const [req] = server.seen;
    expect(req?.path).toBe('/v1/incidents');
    expect(req?.query.get('query')).toBe(
      `status:resolved AND createdAt>=${String(Date.parse(SINCE))} AND createdAt<${String(Date.parse(UNTIL))} AND (tag:production)`,
    );
    expect(req?.query.get('limit')).toBe('100');
    expect(req?.query.get('offset')).toBe('0');
  });

  it('walks the pages by offset until a short page', async () => {
    const page = ex['incidents_page']?.response.body as Record<string, unknown>;
    const incident = (page['data'] as unknown[])[0];
    server.answer((req) => {
      const offset = Number(req.query.get('offset'));
      const size = Math.max(0, Math.min(100, 250 - offset));
      return { status: 200, body: { ...page, data: Array(size).fill(incident) } };
    });
    const r = await count(opsgenieKind, settings);
    expect(r.count).toBe(250);
    expect(server.seen.map((s) => s.query.get('offset'))).toEqual(['0', '100', '200']);
  });

  it('a refused key fails health clearly', async () => {
    server.answer(() => reply(ex['unauthorized']));
    const h = await client(opsgenieKind, settings).health(AbortSignal.timeout(5000));
    expect(h.ok).toBe(false);
    expect(h.detail).toMatch(/Opsgenie refused the credential \(HTTP 401\): check api_key/);
  });

  it('gives up on a server that stops answering', async () => {
    await expectGivesUp(opsgenieKind, settings);
  });
});

describe('jira_service_management', () => {
  const ex = recorded('jira-service-management').exchanges;
  const cloud = { email: 'mia@example.com', api_token: new Secret(TOKEN), project: 'ITSM' };
  const dc = { deployment: 'data_center', api_token: new Secret(TOKEN), project: 'ITSM' };
  const jql =
    'project = "ITSM" AND resolved >= "2026/01/01 00:00" AND resolved < "2026/12/01 00:00"';

  it('cloud: health reads myself with basic email:token', async () => {
    server.answer(() => reply(ex['myself']));
    const h = await client(jiraServiceManagementKind, cloud).health(AbortSignal.timeout(5000));
    expect(h).toMatchObject({ ok: true, detail: expect.stringMatching(/Mia Krystof/) as string });
    expect(server.seen[0]?.path).toBe('/rest/api/3/myself');
    const basic = Buffer.from(`mia@example.com:${TOKEN}`).toString('base64');
    expect(server.seen[0]?.headers['authorization']).toBe(`Basic ${basic}`);
  });

  it('cloud: counts with the approximate-count search, the JQL in the body', async () => {
    server.answer(() => reply(ex['approximate_count']));
    const r = await count(jiraServiceManagementKind, cloud);
    expect(r.count).toBe(153);
    const [req] = server.seen;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/rest/api/3/search/approximate-count');
    expect(JSON.parse(req?.body ?? '')).toEqual({ jql });
  });

  it('data center: counts with maxResults=0 and a bearer token', async () => {
    server.answer(() => reply(ex['search_total']));
    const r = await count(jiraServiceManagementKind, dc);
    expect(r.count).toBe(61);
    const [req] = server.seen;
    expect(req?.method).toBe('GET');
    expect(req?.path).toBe('/rest/api/2/search');
    expect(req?.query.get('jql')).toBe(jql);
    expect(req?.query.get('maxResults')).toBe('0');
    expect(req?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
  });

  it('a refused token fails health naming both settings', async () => {
    server.answer(() => reply(ex['unauthorized']));
    const h = await client(jiraServiceManagementKind, cloud).health(AbortSignal.timeout(5000));
    expect(h.ok).toBe(false);
    expect(h.detail).toMatch(/HTTP 401\): check email and api_token/);
  });

  it('refuses settings that cannot work', () => {
    expect(() => client(jiraServiceManagementKind, { ...cloud, email: undefined })).toThrow(
      /email is required on cloud/,
    );
    expect(() => client(jiraServiceManagementKind, { ...cloud, project: 'a b' })).toThrow(
      /project key/,
    );
  });

  it('gives up on a server that stops answering', async () => {
    await expectGivesUp(jiraServiceManagementKind, cloud);
  });
});

describe('servicenow', () => {
  const ex = recorded('servicenow').exchanges;
  const settings = { user: 'lookback', password: new Secret(TOKEN) };

  it('health reads one sys_id of the table with basic authentication', async () => {
    server.answer(() => reply(ex['table']));
    const h = await client(servicenowKind, settings).health(AbortSignal.timeout(5000));
    expect(h).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/incident readable/) as string,
    });
    const [req] = server.seen;
    expect(req?.path).toBe('/api/now/table/incident');
    expect(req?.query.get('sysparm_limit')).toBe('1');
    const basic = Buffer.from(`lookback:${TOKEN}`).toString('base64');
    expect(req?.headers['authorization']).toBe(`Basic ${basic}`);
  });

  it('counts with the Aggregate API (the count is a string)', async () => {
    server.answer(() => reply(ex['stats_count']));
    const r = await count(servicenowKind, settings);
    expect(r.count).toBe(13);
    const [req] = server.seen;
    expect(req?.path).toBe('/api/now/stats/incident');
    expect(req?.query.get('sysparm_count')).toBe('true');
    expect(req?.query.get('sysparm_query')).toBe(
      "resolved_atBETWEENjavascript:gs.dateGenerate('2026-01-01','00:00:00')@javascript:gs.dateGenerate('2026-11-30','23:59:59')",
    );
  });

  it('a refused password fails health clearly', async () => {
    server.answer(() => reply(ex['unauthorized']));
    const h = await client(servicenowKind, settings).health(AbortSignal.timeout(5000));
    expect(h.ok).toBe(false);
    expect(h.detail).toMatch(
      /ServiceNow refused the credential \(HTTP 401\): check user and password/,
    );
  });

  it('an answer without a count is an error, not a zero', async () => {
    server.answer(() => ({ status: 200, body: { result: { stats: {} } } }));
    await expect(count(servicenowKind, settings)).rejects.toThrow(/without a count/);
  });

  it('gives up on a server that stops answering', async () => {
    await expectGivesUp(servicenowKind, settings);
  });
});
