// The digest over HTTP and from svc-core, against a real server's SQLite file: seeded episodes
// closed through the ledger, a team verdict that labels one, and the ledger verified; bad days
// refused naming the field; the CLI writes the day's Markdown and chart whole.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { seedEpisodes } from '../testing/episodes/episodes.js';
import { requireBundle, runCli } from '../testing/processes.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

requireBundle();

const NOW = '2026-11-28T09:00:00.000Z';
const clock = createFakeClock(NOW);
let server: TestServer;
let out: string;

beforeAll(async () => {
  server = await buildTestServer({ clock });
  out = mkdtempSync(join(tmpdir(), 'svc-digest-'));
  const ids = seedEpisodes({ ...server.runtime, clock }, [
    {
      service: 'web',
      t_open: '2026-11-27T10:00:00.000Z',
      t_close: '2026-11-27T10:20:00.000Z',
      decision: 'act',
      outcome: 'mitigated',
      result: 'resolved',
      action: 'restart_unit',
      confidence: 'proven',
      handover_s: null,
      restore_s: 240,
      lead: { cause: 'service_down', pack: 'host', confidence: 'proven', fixes: ['restart_unit'] },
    },
    {
      service: 'db',
      t_open: '2026-11-27T11:00:00.000Z',
      t_close: '2026-11-27T11:40:00.000Z',
      decision: 'shadow',
      outcome: 'shadow',
      result: 'shadow',
      fix: 'terminate_idle',
      confidence: 'proven',
    },
    {
      service: 'db',
      t_open: '2026-11-25T11:00:00.000Z',
      t_close: '2026-11-25T11:40:00.000Z',
    },
  ]).map(([id]) => id);
  clock.set('2026-11-27T12:00:00.000Z');
  const verdict = await server.app.inject({
    method: 'POST',
    url: `/v1/episodes/${ids[0] ?? ''}/team`,
    headers: asAdmin(),
    payload: { verdict: 'same' },
  });
  expect(verdict.statusCode).toBe(200);
  clock.set(NOW);
});
afterAll(async () => {
  await server.cleanup();
  rmSync(out, { recursive: true, force: true });
});

const get = (url: string) => server.app.inject({ method: 'GET', url, headers: asAdmin() });

describe('GET /v1/digest', () => {
  it('covers today so far by default, and the days asked for with ?days', async () => {
    const today = await get('/v1/digest');
    expect(today.statusCode).toBe(200);
    expect(today.json()).toMatchObject({
      first_day: '2026-11-28',
      last_day: '2026-11-28',
      days: 1,
      partial: true,
      incidents: { opened: 0, ended: 0 },
      ledger: { ok: true },
    });
    const two = (await get('/v1/digest?days=2')).json<Record<string, unknown>>();
    expect(two).toMatchObject({
      first_day: '2026-11-27',
      incidents: { opened: 2 },
      episodes: { opened: 2, ended: 2 },
      service: { results: { resolved: 1, shadow: 1 }, acted: 1 },
      times: { restore: { n: 1, median_s: 240 } },
      shadow: {
        episodes: 1,
        not_judged: 1,
        examples: [{ service: 'db', would: 'terminate_idle', team: 'not judged' }],
      },
      labels: { labels: 1, correct: 1, wrong: 0 },
      per_day: [
        { day: '2026-11-27', opened: 2 },
        { day: '2026-11-28', opened: 0 },
      ],
    });
    expect(two['markdown']).toContain('# Digest 2026-11-27 to 2026-11-28 (so far)');
    expect(two['markdown']).toContain('- 1 resolved by the service');
    expect(two['markdown']).toMatch(/The ledger verifies through seq \d+/);
    expect(two['chart_svg']).toContain('2026-11-27: 2 opened');
  });

  it('refuses days outside 1 to 90 naming the field', async () => {
    for (const days of ['0', '91', 'x']) {
      const res = await get(`/v1/digest?days=${days}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ field: 'days' });
    }
  });
});

describe('svc-core digest', () => {
  it('writes the day’s Markdown and chart whole, and refuses a day that is no date', async () => {
    await server.stop();
    const ok = await runCli(server.env, ['digest', '2026-11-27', '--out', out]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`digest of 2026-11-27 written: ${join(out, '2026-11-27.md')}`);
    const md = readFileSync(join(out, '2026-11-27.md'), 'utf8');
    expect(md).toContain('# Digest 2026-11-27\n');
    expect(md).toContain('| db | 1 | 0 |');
    expect(md).toContain('![Incidents per day](2026-11-27.svg)');
    expect(readFileSync(join(out, '2026-11-27.svg'), 'utf8')).toMatch(/^<svg /);
    expect(readdirSync(out).filter((f) => f.includes('.tmp-'))).toEqual([]);

    for (const day of ['27/11/2026', '2026-02-30']) {
      const bad = await runCli(server.env, ['digest', day, '--out', out]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('day must be a date as YYYY-MM-DD');
    }
    expect(existsSync(join(out, '2026-02-30.md'))).toBe(false);
    expect(existsSync(join(out, '27/11/2026.md'))).toBe(false);
  });
});
