// The study over HTTP against a real server and SQLite file, its connector a real prometheus
// connector talking to a Prometheus stand-in (node:http) whose series are made so that the
// answer is known: app's CPU leads postgresql's by two steps, web has no exporter. A study
// walks app, postgresql and web: baselines from range queries, an obstacle per thing it could
// not read with its fix, the relation (an estate suggestion that can be confirmed), and the
// causes the packs know with their readable checks. Also: bad input changes nothing, 409
// while one runs, stop before the next cause, the deadline, interrupted after a restart, and
// the causal discovery service (links used; a 401 and a timeout fall back, saying why).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../shared/clock.js';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { body, listen, prometheusStandIn, type Stub } from '../testing/prometheus-stand-in.js';

const STEP_S = 10;
const WINDOW_S = 600;
const CAUSAL_TOKEN = 'causal-token-planted-7f3a';

/** The causal discovery stand-in: answers links, refuses the token, or hangs. */
interface Causal {
  server: Server;
  url: string;
  mode: 'links' | 'refuse' | 'hang';
  asked: { auth: string | undefined; body: Record<string, unknown> }[];
}
async function causalStandIn(): Promise<Causal> {
  const c: Causal = { server: createServer(), url: '', mode: 'links', asked: [] };
  c.server.on('request', (req, res) => {
    void (async (): Promise<void> => {
      const sent = JSON.parse(await body(req)) as Record<string, unknown>;
      c.asked.push({ auth: req.headers.authorization, body: sent });
      if (c.mode === 'hang') return; // never answers: the caller's limit ends it
      if (c.mode === 'refuse' || req.headers.authorization !== `Bearer ${CAUSAL_TOKEN}`) {
        res.writeHead(401).end('no');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          links: [
            { from: 'app/memory', to: 'postgresql/cpu', lag: 1, strength: 0.9 },
            { from: 'app/cpu', to: 'app/memory', lag: 0, strength: 0.99 },
            { from: 'nobody/cpu', to: 'app/cpu', lag: 1, strength: 1 },
            // Beyond what was asked (tau 3), a lag that is no number, a strength past 1:
            // each left out, though each would outrank the link above.
            { from: 'app/cpu', to: 'postgresql/cpu', lag: 99, strength: 1 },
            { from: 'postgresql/cpu', to: 'app/memory', lag: null, strength: 1 },
            { from: 'postgresql/cpu', to: 'app/cpu', lag: 1, strength: 7 },
          ],
        }),
      );
    })();
  });
  c.url = await listen(c.server);
  return c;
}

const NOW = '2026-11-28T08:00:00.000Z';
const clock = createFakeClock(NOW);
let prom: Stub;
let causal: Causal;
let server: TestServer;

const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
  const res = await server.app.inject({
    method,
    url,
    headers: asAdmin(),
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
};

interface View {
  running: {
    step: string;
    service: string | null;
    cause: string | null;
    done: number;
    of: number;
    stopping: boolean;
  } | null;
  study: {
    study_id: string;
    status: string;
    why: string | null;
    relations_method: string | null;
    relations_note: string | null;
  } | null;
  last: {
    service: string;
    study_id: string;
    complete: boolean;
    baseline: { reading: string; n: number; min: number; max: number; p5: number; p95: number }[];
    obstacles: { what: string; reason: string; fix: string }[];
    relations: { from: string; to: string; lag: number; strength: number; method: string }[];
    causes: {
      cause: string;
      checks: number;
      readable: number;
      unreadable: { check: string; why: string }[];
    }[];
  }[];
}
const view = async (): Promise<View> => {
  const res = await call('GET', '/v1/study');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as View;
};

async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const ended = () =>
  until('the study to end', async () => ((await view()).running === null ? true : undefined));
const events = async (type: string) => {
  const res = await call('GET', `/v1/ledger?type=${type}&limit=100`);
  return (
    (res.body['events'] as { type: string; actor: string; data: Record<string, unknown> }[]) ?? []
  );
};

async function connect(): Promise<void> {
  const put = await call('PUT', '/v1/connectors/prom', {
    kind: 'prometheus',
    settings: { url: prom.url },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  await until('operating', async () =>
    (await call('GET', '/v1/status')).body['mode'] === 'operating' ? true : undefined,
  );
  await call('POST', '/v1/discover', {});
  await until('three services in the estate', async () => {
    const e = await call('GET', '/v1/estate');
    const names = ((e.body['services'] as { name: string }[] | undefined) ?? []).map((s) => s.name);
    return ['app', 'postgresql', 'web'].every((n) => names.includes(n)) ? true : undefined;
  });
}

beforeAll(async () => {
  prom = await prometheusStandIn();
  causal = await causalStandIn();
  server = await buildTestServer({ clock, study: { windowS: WINDOW_S, stepS: STEP_S } });
  await connect();
}, 60_000);

afterAll(async () => {
  await server.cleanup();
  prom.server.close();
  causal.server.closeAllConnections();
  causal.server.close();
});

describe('a study of the estate', () => {
  it('before any study: nothing running, nothing learned', async () => {
    expect(await view()).toEqual({ running: null, study: null, last: [] });
  });

  it.each([
    [{ minutes: 0 }],
    [{ minutes: 121 }],
    [{ minutes: 1.5 }],
    [{ minutes: '15' }],
    [{ minutes: true }],
    [{ minutes: null }],
    [{ minutes: 5, extra: true }],
  ])(
    'POST /v1/study %j is a 400 naming minutes (or the unknown field), and starts nothing',
    async (payload) => {
      const res = await call('POST', '/v1/study', payload);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(JSON.stringify(res.body)).toMatch('extra' in payload ? /extra/ : /minutes/);
      expect(await events('study.started')).toEqual([]);
    },
  );

  it('walks every service: baseline, obstacles with fixes, relations, readable causes', async () => {
    const started = await call('POST', '/v1/study', { minutes: 1 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({ minutes: 1, ends_at: '2026-11-28T08:01:00.000Z' });
    const again = await call('POST', '/v1/study', {});
    expect(again.status).toBe(409);
    expect(again.body['error']).toBe('study_running');
    await ended();
    const v = await view();
    expect(v.study).toMatchObject({
      status: 'finished',
      why: 'done',
      relations_method: 'lagged_correlation',
      relations_note: null,
    });
    expect(v.last.map((l) => [l.service, l.complete])).toEqual([
      ['app', true],
      ['postgresql', true],
      ['web', true],
    ]);
    const [app, pg, web] = v.last;
    // 61 steps over 600 s; wave() takes the values 1..17, so CPU is 0.01 to 0.17.
    const cpu = app?.baseline.find((b) => b.reading === 'cpu');
    expect(cpu).toMatchObject({ n: WINDOW_S / STEP_S + 1, min: 0.01, max: 0.17 });
    expect(app?.baseline.find((b) => b.reading === 'up')).toMatchObject({ min: 1, max: 1 });
    expect(web?.baseline).toEqual([]);
    expect(web?.obstacles).toContainEqual(
      expect.objectContaining({
        fix: expect.stringMatching(/^no exporter target for service web/) as unknown,
      }),
    );
    // No ssh connector at all: the ssh checks name the host to add one for.
    expect(app?.obstacles).toContainEqual(
      expect.objectContaining({
        fix: 'no ssh connector reaches app: add an ssh connector whose host is app-1',
      }),
    );
    // app leads postgresql by two steps: postgresql depends on app.
    const relation = {
      from: 'postgresql',
      to: 'app',
      lag: 2,
      strength: 1,
      method: 'lagged_correlation',
    };
    expect(app?.relations).toEqual([expect.objectContaining(relation)]);
    expect(pg?.relations).toEqual([expect.objectContaining(relation)]);
    // Causes: the prometheus checks read (the stand-in answers), ssh and git ones do not.
    expect(app?.causes.length).toBeGreaterThan(5);
    expect(app?.causes.some((c) => c.readable > 0)).toBe(true);
    const down = app?.causes.find((c) => c.cause === 'service_down');
    expect(down?.unreadable.some((u) => u.why === 'no ssh connector reaches app')).toBe(true);
    const types = (await call('GET', '/v1/ledger?type=study.&limit=100')).body['events'] as {
      type: string;
    }[];
    expect(types.map((e) => e.type).sort()).toEqual(
      [
        'study.finished',
        'study.relations',
        'study.service_done',
        'study.service_done',
        'study.service_done',
        'study.started',
      ].sort(),
    );
  }, 60_000);

  it('the relation is an estate suggestion with its lag, strength and score; confirming it places the link', async () => {
    const list = await call('GET', '/v1/estate/suggestions');
    const s = (
      list.body['suggestions'] as {
        id: string;
        from: string;
        to: string;
        evidence: string;
        score: number;
      }[]
    ).find((x) => x.from === 'postgresql' && x.to === 'app');
    expect(s?.evidence).toBe(
      'the study of 2026-11-28 found app cpu → postgresql cpu related by lagged correlation: app leads by 2 steps (20 s), strength 1, score 1',
    );
    const confirmed = await call('POST', '/v1/estate/suggestions/confirm', { id: s?.id });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const estate = await call('GET', '/v1/estate');
    expect(estate.body['links']).toContainEqual(
      expect.objectContaining({ from: 'postgresql', to: 'app' }),
    );
  });

  it('stop: the study ends before its next cause, and says who stopped it', async () => {
    prom.delayMs = 150;
    expect((await call('POST', '/v1/study', { minutes: 5 })).status).toBe(202);
    await until('the causes step', async () => {
      const r = (await view()).running;
      return r !== null && r.step === 'causes' && r.done >= 2 ? true : undefined;
    });
    const stop = await call('POST', '/v1/study/stop', {});
    expect(stop.status).toBe(200);
    expect((stop.body['running'] as { stopping: boolean }).stopping).toBe(true);
    await ended();
    prom.delayMs = 0;
    const v = await view();
    expect(v.study?.status).toBe('stopped');
    const app = v.last.find((l) => l.service === 'app');
    expect(app?.complete).toBe(false);
    // Services it never reached keep what the study before learned of them.
    const web = v.last.find((l) => l.service === 'web');
    expect(web?.complete).toBe(true);
    expect(web?.study_id).not.toBe(v.study?.study_id);
    const stopped = await events('study.stopped');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]?.actor).toBe('admin-token');
  }, 60_000);

  it('stopped in the baseline step, it writes nothing over the last study', async () => {
    const before = await view();
    const relationsBefore = await events('study.relations');
    const doneBefore = await events('study.service_done');
    prom.delayMs = 300;
    expect((await call('POST', '/v1/study', { minutes: 5 })).status).toBe(202);
    await until('the baseline step', async () =>
      (await view()).running?.step === 'baseline' ? true : undefined,
    );
    expect((await call('POST', '/v1/study/stop', {})).status).toBe(200);
    await ended();
    prom.delayMs = 0;
    const v = await view();
    expect(v.study?.status).toBe('stopped');
    expect(v.last).toEqual(before.last);
    expect(await events('study.relations')).toHaveLength(relationsBefore.length);
    expect(await events('study.service_done')).toHaveLength(doneBefore.length);
  }, 60_000);

  it('the deadline ends it before the next cause too', async () => {
    prom.delayMs = 150;
    expect((await call('POST', '/v1/study', { minutes: 1 })).status).toBe(202);
    await until('the causes step', async () =>
      (await view()).running?.step === 'causes' ? true : undefined,
    );
    clock.advance(61_000);
    await ended();
    prom.delayMs = 0;
    expect((await view()).study).toMatchObject({ status: 'finished', why: 'deadline' });
  }, 60_000);

  it('a study running when the process ends is shown interrupted after the restart', async () => {
    prom.delayMs = 300;
    expect((await call('POST', '/v1/study', { minutes: 5 })).status).toBe(202);
    await until('the causes step', async () =>
      (await view()).running?.step === 'causes' ? true : undefined,
    );
    const dir = server.dir;
    await server.stop();
    prom.delayMs = 0;
    server = await buildTestServer({
      clock,
      dir,
      study: { windowS: WINDOW_S, stepS: STEP_S },
      env: {
        SVC_CAUSAL_URL: causal.url,
        SVC_CAUSAL_TOKEN: CAUSAL_TOKEN,
        SVC_CAUSAL_TIMEOUT_S: '1',
        SVC_CAUSAL_TAU: '3',
      },
    });
    const v = await view();
    expect(v.running).toBeNull();
    expect(v.study).toMatchObject({
      status: 'interrupted',
      why: 'the service stopped while the study ran',
    });
    expect(await events('study.interrupted')).toHaveLength(1);
  }, 60_000);
});

describe('the causal discovery service (SVC_CAUSAL_URL)', () => {
  const run = async () => {
    await until('operating again', async () =>
      (await call('GET', '/v1/status')).body['mode'] === 'operating' ? true : undefined,
    );
    const res = await call('POST', '/v1/study', { minutes: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await ended();
    return view();
  };

  it('gets the readings with the bearer token, and its links are used instead', async () => {
    causal.mode = 'links';
    const v = await run();
    const asked = causal.asked.at(-1);
    expect(asked?.auth).toBe(`Bearer ${CAUSAL_TOKEN}`);
    expect(asked?.body).toMatchObject({ step_s: STEP_S, tau: 3 });
    expect(Object.keys(asked?.body['series'] as object)).toContain('app/cpu');
    expect(v.study).toMatchObject({ relations_method: 'causal_service', relations_note: null });
    // app/memory drives postgresql/cpu: postgresql depends on app. A link within one
    // service, or naming a series never sent, is left out.
    expect(v.last.find((l) => l.service === 'app')?.relations).toEqual([
      {
        from: 'postgresql',
        to: 'app',
        lag: 1,
        strength: 0.9,
        score: 0.9,
        readings: 'app memory → postgresql cpu',
        method: 'causal_service',
      },
    ]);
  }, 60_000);

  it('a refused token (401) falls back to lagged correlation, saying why, never showing the token', async () => {
    causal.mode = 'refuse';
    const v = await run();
    expect(v.study?.relations_method).toBe('lagged_correlation');
    expect(v.study?.relations_note).toBe(
      `the causal discovery service at ${causal.url}/ refused the token (401): set SVC_CAUSAL_TOKEN (or SVC_CAUSAL_TOKEN_FILE) to a token it accepts; lagged correlation used instead`,
    );
    expect(v.last.find((l) => l.service === 'app')?.relations[0]).toMatchObject({
      lag: 2,
      method: 'lagged_correlation',
    });
    const ledger = await call('GET', '/v1/ledger?limit=1000');
    expect(JSON.stringify(ledger.body)).not.toContain(CAUSAL_TOKEN);
  }, 60_000);

  it('no answer within SVC_CAUSAL_TIMEOUT_S falls back too', async () => {
    causal.mode = 'hang';
    const v = await run();
    expect(v.study?.relations_method).toBe('lagged_correlation');
    expect(v.study?.relations_note).toBe(
      `the causal discovery service at ${causal.url}/ did not answer within 1 s (SVC_CAUSAL_TIMEOUT_S); lagged correlation used instead`,
    );
  }, 60_000);
});
