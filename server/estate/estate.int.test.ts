// Discovery end to end against Debian's real Prometheus: it scrapes a tiny exporter served
// here as two jobs, web (static label depends_on=db) and db; POST /v1/discover runs as a job,
// and GET /v1/estate shows both services with their hosts and origins and the link web → db.
// The routes run with the real auth plugin, error handler and schemas.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEpisodesStore } from '../episodes/index.js';
import { freePort, until } from '../../e2e/lab/processes.js';
import { prometheusKind } from '../connectors/index.js';
import { auth } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import { createLogger } from '../logger.js';
import { systemClock } from '../shared/clock.js';
import { Secret } from '../shared/secret.js';
import { createEstateService, createEstateStore, estateRoutes } from './index.js';
import { EPISODE_INPUTS } from '../compose/index.js';
import { openLedgerBench } from '../testing/ledger-bench.js';

const ADMIN_TOKEN = 'admin-token-for-estate-tests-0123456789';
const VIEWER_TOKEN = 'viewer-session-for-estate-tests';

let dir: string;
let exporter: Server;
let exporterTarget: string;
let promUrl: string;
let stopProm: () => Promise<void>;
let app: ReturnType<typeof createHttpServer>;
let closeDb: () => void;
let mode: 'setup' | 'configuring' | 'operating' = 'configuring';

/** Prometheus with our own scrape config: the lab helper writes a single job without labels. */
async function startPrometheus(target: string): Promise<void> {
  const port = await freePort();
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: web',
      `    static_configs: [{ targets: ['${target}'], labels: { depends_on: db } }]`,
      '  - job_name: db',
      `    static_configs: [{ targets: ['${target}'] }]`,
      '',
    ].join('\n'),
  );
  const child = spawn(
    '/usr/bin/prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-10_000)));
  promUrl = `http://127.0.0.1:${String(port)}`;
  stopProm = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  await until(`prometheus at ${promUrl}: ${out}`, async () => {
    if (child.exitCode !== null) throw new Error(`prometheus exited: ${out}`);
    return (await fetch(`${promUrl}/-/ready`)).ok ? true : undefined;
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-estate-int-'));
  exporter = createServer((_req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end('# TYPE lab_value gauge\nlab_value 1\n');
  });
  await new Promise<void>((r) => exporter.listen(0, '127.0.0.1', r));
  const address = exporter.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  exporterTarget = `127.0.0.1:${String(address.port)}`;
  await startPrometheus(exporterTarget);

  const clients = {
    prom: prometheusKind.create({ url: promUrl }),
    // Nothing listens on port 1: this connector fails.
    down: prometheusKind.create({ url: 'http://127.0.0.1:1' }),
  };
  // Wait until Prometheus knows both targets.
  await until('both targets', async () => {
    const targets = (await clients.prom.call('targets', {}, AbortSignal.timeout(5000))) as {
      job: string;
    }[];
    return targets.length === 2 ? true : undefined;
  });

  const { db, writer, projections, ledger } = openLedgerBench(join(dir, 'svc.db'), systemClock);
  closeDb = () => db.close();
  const store = createEstateStore(db);
  projections.register(store.projection);
  const estate = createEstateService({
    store,
    ledger,
    writer,
    clock: systemClock,
    connectors: () => [
      { name: 'prom', kind: 'prometheus', problem: null },
      { name: 'down', kind: 'prometheus', problem: null },
      { name: 'git', kind: 'git', problem: null },
    ],
    call: (name, op, args) => {
      const client = name === 'prom' || name === 'down' ? clients[name] : null;
      if (client === null) throw new Error(`no connector ${name}`);
      return client.call(op, args ?? {}, AbortSignal.timeout(5000));
    },
    timeoutS: 10,
    episodes: createEpisodesStore(db, EPISODE_INPUTS),
  });
  app = createHttpServer({ log: createLogger('silent') });
  await app.register(auth, {
    adminToken: new Secret(ADMIN_TOKEN),
    ingestToken: null,
    delayMs: 0,
    sessions: {
      lookup: (token) =>
        token === VIEWER_TOKEN
          ? { kind: 'session', name: 'vera', role: 'viewer', userId: 'u-vera' }
          : null,
    },
  });
  await app.register(estateRoutes, { prefix: '/v1', estate, mode: () => mode });
  await app.ready();
}, 60_000);

afterAll(async () => {
  await app?.close();
  closeDb?.();
  await stopProm?.();
  await new Promise((r) => exporter?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const as = (token: string) => ({ authorization: `Bearer ${token}` });
const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: unknown) =>
  app.inject({
    method,
    url,
    headers: {
      ...as(token),
      ...(payload !== undefined && { 'content-type': 'application/json' }),
    },
    ...(payload !== undefined && { payload: JSON.stringify(payload) }),
  });

describe('discovery from a real Prometheus', () => {
  it('needs the admin role to start and the viewer role to read', async () => {
    expect((await call('POST', '/v1/discover', VIEWER_TOKEN)).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/v1/estate' })).statusCode).toBe(401);
    expect((await call('GET', '/v1/jobs/job-none', VIEWER_TOKEN)).statusCode).toBe(404);
  });

  it('finds web and db with hosts and origins, and the link web → db', async () => {
    const started = await call('POST', '/v1/discover', ADMIN_TOKEN);
    expect(started.statusCode, started.body).toBe(202);
    const { job_id } = started.json<{ job_id: string }>();
    const job = await until('the job to finish', async () => {
      const res = await call('GET', `/v1/jobs/${job_id}`, VIEWER_TOKEN);
      const body = res.json<{ status: string }>();
      return body.status === 'running' ? undefined : body;
    });
    expect(job).toMatchObject({
      id: job_id,
      kind: 'discover',
      status: 'done',
      progress: { done: 2, total: 2 },
      result: {
        services: 2,
        links: 1,
        per_connector: {
          prom: { status: 'ok', detail: null },
          down: { status: 'failed' },
        },
      },
    });

    const res = await call('GET', '/v1/estate', VIEWER_TOKEN);
    expect(res.statusCode, res.body).toBe(200);
    const estate = res.json<Record<string, unknown>>();
    expect(estate['services']).toEqual([
      {
        name: 'db',
        kind: null,
        hosts: ['127.0.0.1'],
        origins: [{ connector: 'prom', how: 'prometheus target job=db' }],
      },
      {
        name: 'web',
        kind: null,
        hosts: ['127.0.0.1'],
        origins: [{ connector: 'prom', how: 'prometheus target job=web' }],
      },
    ]);
    expect(estate['links']).toEqual([
      { from: 'web', to: 'db', origin: { connector: 'prom', how: 'label depends_on' } },
    ]);
    expect(estate['connectors']).toMatchObject({
      prom: { status: 'ok', detail: null },
      down: { status: 'failed' },
    });
    expect(estate['unlinked']).toEqual([]);
  });

  it('serves and replaces the overrides; a bad document is refused naming the field', async () => {
    const bad = await call('PUT', '/v1/estate/overrides', ADMIN_TOKEN, {
      links: [{ from: 'web', to: 'db', colour: 'red' }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_input', field: 'links.0.colour' });
    const self = await call('PUT', '/v1/estate/overrides', ADMIN_TOKEN, {
      links: [{ from: 'web', to: 'web' }],
    });
    expect(self.statusCode).toBe(400);
    expect(self.json()).toMatchObject({ field: 'links.0.to' });
    expect(
      (await call('PUT', '/v1/estate/overrides', VIEWER_TOKEN, { ignore: [] })).statusCode,
    ).toBe(403);

    const put = await call('PUT', '/v1/estate/overrides', ADMIN_TOKEN, {
      services: { db: { aliases: ['postgres'], kind: 'postgresql' } },
      links: [{ from: 'batch', to: 'db' }],
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ set_by: 'admin-token' });
    const got = (await call('GET', '/v1/estate/overrides', VIEWER_TOKEN)).json<unknown>();
    expect(got).toEqual(put.json());
    const estate = (await call('GET', '/v1/estate', VIEWER_TOKEN)).json<{
      services: { name: string; kind: string | null }[];
      problems: { what: string }[];
    }>();
    expect(estate.services.find((s) => s.name === 'db')?.kind).toBe('postgresql');
    expect(estate.problems.map((p) => p.what)).toContain('link_unknown_service');
  });

  it('answers 503 below configuring mode', async () => {
    mode = 'setup';
    try {
      expect((await call('GET', '/v1/estate', VIEWER_TOKEN)).statusCode).toBe(503);
    } finally {
      mode = 'configuring';
    }
  });
});
