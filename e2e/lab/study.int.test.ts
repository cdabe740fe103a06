// Issue 21's study on the lab: the real service, its real connectors (Prometheus, ssh to the
// hosts, PostgreSQL, git), after discovery. The ssh connector of the db host is taken away,
// so postgresql has an obstacle with its fix. A one-minute study reads each service's
// baseline with real range queries, sends the readings to a causal discovery stand-in
// (SVC_CAUSAL_URL, node:http) whose link becomes an estate suggestion, and reads the causes
// the packs know: some checks readable, some not. A second study is stopped before its next
// cause; a start while one runs is refused.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './connect.js';
import { startLab, type Lab } from './lab.js';
import { until } from './processes.js';

interface StudyView {
  running: { step: string; done: number; of: number } | null;
  study: { status: string; why: string | null; relations_method: string | null } | null;
  last: {
    service: string;
    baseline: { reading: string; n: number; p5: number; p95: number }[];
    obstacles: { what: string; reason: string; fix: string }[];
    relations: { from: string; to: string; method: string }[];
    causes: { cause: string; readable: number; unreadable: { check: string; why: string }[] }[];
  }[];
}

let lab: Lab;
let causal: Server;
const asked: { series: Record<string, unknown> }[] = [];
const parent = mkdtempSync(join(tmpdir(), 'lab-study-'));

/** Links the first reading of app to the first of postgresql, as the stand-in's finding. */
function link(series: Record<string, unknown>) {
  const names = Object.keys(series);
  const app = names.find((n) => n.startsWith('app/'));
  const pg = names.find((n) => n.startsWith('postgresql/'));
  return app === undefined || pg === undefined
    ? []
    : [{ from: pg, to: app, lag: 1, strength: 0.8 }];
}

beforeAll(async () => {
  causal = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as { series: Record<string, unknown> };
      asked.push(body);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ links: link(body.series) }));
    });
  });
  await new Promise<void>((resolve) => causal.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((causal.address() as AddressInfo).port)}/discover`;
  lab = await startLab({
    dir: join(parent, 'lab'),
    net: '127.0.21',
    serviceEnv: { SVC_CAUSAL_URL: url, SVC_CAUSAL_TOKEN: 'lab-causal-token' },
  });
  const { job_id } = await api<{ job_id: string }>(lab.api, 'POST', '/v1/discover');
  await until(
    'discovery',
    async () => {
      const j = await api<{ status: string }>(lab.api, 'GET', `/v1/jobs/${job_id}`);
      return j.status === 'running' ? undefined : j;
    },
    45_000,
  );
  await api(lab.api, 'DELETE', '/v1/connectors/ssh-db');
  // A young Prometheus has scraped nothing yet: the baseline needs app's readings there.
  // Several samples, so the range query's last step (now) is sure to see one.
  for (const query of ['count_over_time(up{service="app"}[10m]) >= 3'])
    await until(
      `Prometheus to hold ${query}`,
      async () => {
        const url = `${lab.state.monitor.prometheus}/api/v1/query?query=${encodeURIComponent(query)}`;
        const body = (await (await fetch(url)).json()) as { data?: { result?: unknown[] } };
        return (body.data?.result?.length ?? 0) > 0 ? true : undefined;
      },
      60_000,
    );
}, 210_000);

afterAll(async () => {
  await lab?.stop();
  causal?.close();
  rmSync(parent, { recursive: true, force: true });
}, 60_000);

const view = () => api<StudyView>(lab.api, 'GET', '/v1/study');
const ended = (ms: number) =>
  until('the study to end', async () => ((await view()).running === null ? true : undefined), ms);

describe('a study of the lab', () => {
  it('learns baselines, obstacles, relations and readable causes, read-only', async () => {
    await api(lab.api, 'POST', '/v1/study', { minutes: 1 });
    // One at a time.
    const again = await fetch(`${lab.api.url}/v1/study`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lab.api.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(again.status).toBe(409);
    await ended(120_000);
    const v = await view();
    expect(v.study?.status).toBe('finished');
    const of = (name: string) => v.last.find((l) => l.service === name);
    // Real range queries: app's up has a baseline (a young lab may lack other readings yet).
    const app = of('app');
    expect(
      app?.baseline.find((b) => b.reading === 'up'),
      JSON.stringify(v),
    ).toMatchObject({ p5: 1, p95: 1 });
    // The db host lost its ssh connector: the obstacle names it and the fix.
    const pg = of('postgresql');
    expect(pg?.obstacles.map((o) => o.fix)).toContainEqual(
      expect.stringMatching(
        /^no ssh connector reaches postgresql: add an ssh connector whose host is /,
      ),
    );
    // The readings went to the causal service; its link is the relation and a suggestion.
    expect(Object.keys(asked[0]?.series ?? {})).toContain('app/up');
    expect(v.study?.relations_method).toBe('causal_service');
    expect(pg?.relations).toEqual([
      expect.objectContaining({ from: 'app', to: 'postgresql', method: 'causal_service' }),
    ]);
    const sugg = await api<{ suggestions: { from: string; to: string; evidence: string }[] }>(
      lab.api,
      'GET',
      '/v1/estate/suggestions',
    );
    const found = sugg.suggestions.find((s) => s.from === 'app' && s.to === 'postgresql');
    // Discovery may know the link already; then it is no suggestion, and the study says so.
    if (found !== undefined) expect(found.evidence).toMatch(/causal discovery service/);
    // Causes: app's prometheus and ssh checks read; postgresql's ssh ones do not.
    expect(app?.causes.some((c) => c.readable > 0)).toBe(true);
    expect(
      pg?.causes.some((c) =>
        c.unreadable.some((u) => u.why === 'no ssh connector reaches postgresql'),
      ),
    ).toBe(true);
  }, 180_000);

  it('stop ends the study before its next cause', async () => {
    await api(lab.api, 'POST', '/v1/study', { minutes: 5 });
    await until(
      'the causes step',
      async () => ((await view()).running?.step === 'causes' ? true : undefined),
      60_000,
    );
    const stopped = await api<StudyView>(lab.api, 'POST', '/v1/study/stop', {});
    expect(stopped.running).not.toBeNull();
    await ended(60_000);
    const v = await view();
    expect(v.study?.status).toBe('stopped');
  }, 150_000);
});
