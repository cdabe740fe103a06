// `severity` in the query language and on each row of GET /v1/episodes: the worst severity
// of an episode's signals, `unknown` when none says; listed by GET /v1/search/fields; read from
// projections only, so a rebuild from the ledger gives the same answers.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rebuildProjections } from '../ledger/index.js';
import { createFakeClock } from '../shared/clock.js';
import { seedEpisodes } from '../testing/episodes/episodes.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

const clock = createFakeClock('2026-11-22T12:00:00.000Z');
let server: TestServer;

const base = { t_open: '2026-11-21T10:00:00.000Z', t_close: '2026-11-21T10:10:00.000Z' };

beforeAll(async () => {
  server = await buildTestServer({ clock });
  const ids = seedEpisodes({ ...server.runtime, clock }, [
    { ...base, service: 'crit', severity: 'critical' },
    { ...base, service: 'warn', severity: 'warning', alerts: ['A', 'B'] },
    { ...base, service: 'info', severity: 'info' },
    // No signal recorded: nothing says how severe it was.
    { ...base, service: 'none' },
  ]);
  // `warn`'s second alert fires again, now high: the worst of its signals counts.
  const [warn] = ids[1]!;
  const { writer, ledger } = server.runtime;
  writer.transactNow(() => {
    ledger.append({
      type: 'signal.fired',
      actor: 'source:seed',
      data: {
        source: 'seed',
        fingerprint: `${warn}-1`,
        name: 'B',
        status: 'firing',
        severity: 'high',
        service: 'warn',
        resource: null,
        started_at: base.t_close,
        ended_at: null,
        summary: '',
        labels: {},
        link: null,
      },
      trace_id: warn,
    });
  });
  clock.set('2026-11-22T12:00:00.000Z');
});
afterAll(async () => {
  await server.cleanup();
});

async function list(query: string): Promise<{ service: string; severity: string }[]> {
  const res = await server.app.inject({
    method: 'GET',
    url: `/v1/episodes?sort=service&query=${encodeURIComponent(query)}`,
    headers: asAdmin(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ episodes: { service: string; severity: string }[] }>().episodes;
}

it('is the worst severity of the episode’s signals, on every row', async () => {
  expect(await list('')).toEqual([
    expect.objectContaining({ service: 'crit', severity: 'critical' }),
    expect.objectContaining({ service: 'info', severity: 'info' }),
    expect.objectContaining({ service: 'none', severity: 'unknown' }),
    expect.objectContaining({ service: 'warn', severity: 'high' }),
  ]);
});

it('filters with severity:, its negation and alternatives', async () => {
  const services = async (q: string) => (await list(q)).map((r) => r.service);
  expect(await services('severity:critical')).toEqual(['crit']);
  expect(await services('severity:high OR severity:info')).toEqual(['info', 'warn']);
  expect(await services('-severity:critical -severity:unknown')).toEqual(['info', 'warn']);
  expect(await services('severity:unknown')).toEqual(['none']);
});

it('refuses a severity that is not one, naming the values', async () => {
  const res = await server.app.inject({
    method: 'GET',
    url: `/v1/episodes?query=${encodeURIComponent('severity:sevre')}`,
    headers: asAdmin(),
  });
  expect(res.statusCode).toBe(400);
  expect(res.json<{ error: string; message: string }>()).toMatchObject({ error: 'bad_query' });
  expect(res.json<{ message: string }>().message).toContain('critical');
});

it('is listed by GET /v1/search/fields with its values', async () => {
  const res = await server.app.inject({
    method: 'GET',
    url: '/v1/search/fields',
    headers: asAdmin(),
  });
  const fields = res.json<{ episodes: { fields: { name: string; values?: string[] }[] } }>()
    .episodes.fields;
  expect(fields.find((f) => f.name === 'severity')?.values).toEqual([
    'critical',
    'high',
    'warning',
    'info',
    'unknown',
  ]);
});

it('comes back the same after a rebuild from the ledger', async () => {
  const { db, ledgerStore, projections, writer } = server.runtime;
  rebuildProjections(db, ledgerStore, projections, false, (fn) => {
    writer.transactNow(fn);
  });
  expect((await list('')).map((r) => [r.service, r.severity])).toEqual([
    ['crit', 'critical'],
    ['info', 'info'],
    ['none', 'unknown'],
    ['warn', 'high'],
  ]);
});
