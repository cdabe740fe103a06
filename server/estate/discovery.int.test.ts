// Discovery from every connector that can, through real HTTP: connectors are PUT through the
// connectors routes (real registry, store and runtime), with test kinds standing in for ssh
// hosts and a PostgreSQL catalogue and the real http probe kind; POST /v1/discover, the
// job's progress, GET /v1/estate (services, observed links, candidates), suggestions with
// confirm and dismiss, and the promotion of a candidate by an override.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectorsRoutes,
  createConnectorsService,
  createConnectorsStore,
  createRegistry,
  type ConnectorKind,
  httpKind,
} from '../connectors/index.js';
import type { openDatabase } from '../db/open.js';
import { type Writer } from '../db/writer.js';
import { auth } from '../http/auth.js';
import { createHttpServer } from '../http/server.js';
import type { createLedgerStore, createProjections } from '../ledger/index.js';
import { dumpProjections, replayLedger } from '../ledger/index.js';
import { createLogger } from '../logger.js';
import { systemClock } from '../shared/clock.js';
import { Secret } from '../shared/secret.js';
import { createEstateService, createEstateStore, estateRoutes, suggestionId } from './index.js';
import { ledgerRows } from '../testing/ledger-rows.js';
import { openLedgerBench } from '../testing/ledger-bench.js';

const ADMIN_TOKEN = 'admin-token-for-discovery-tests-0123456789';
const VIEWER_TOKEN = 'viewer-session-for-discovery-tests';

/** What each fake host answers over "ssh", by its host setting. */
const HOSTS: Record<string, { services: unknown; ports: unknown }> = {
  '10.0.0.1': {
    services: {
      units: [
        { name: 'nginx', state: 'running', pid: 10 },
        { name: 'app', state: 'running', pid: 11 },
        { name: 'worker', state: 'running', pid: 12 },
      ],
    },
    ports: {
      listening: [
        { address: '0.0.0.0', port: 80, process: 'nginx' },
        { address: '127.0.0.1', port: 8080, process: 'app' },
      ],
      established: [
        {
          local_address: '10.0.0.1',
          local_port: 41000,
          peer_address: '10.0.0.2',
          peer_port: 5432,
          process: 'app',
        },
        {
          local_address: '10.0.0.1',
          local_port: 41001,
          peer_address: '10.0.0.2',
          peer_port: 5432,
          process: 'worker',
        },
      ],
    },
  },
  '10.0.0.2': {
    services: { units: [{ name: 'postgresql', state: 'running', pid: 20 }] },
    ports: {
      listening: [{ address: '*', port: 5432, process: 'postgresql' }],
      established: [],
    },
  },
};

const sshKind: ConnectorKind = {
  kind: 'ssh',
  title: 'ssh (test)',
  description: 'canned gate answers by host',
  capabilities: ['gate', 'discover'],
  operations: ['services', 'ports'],
  settings: [{ name: 'host', type: 'string', required: true, description: 'host' }],
  create(settings) {
    const host = HOSTS[String(settings['host'])];
    return {
      health: async () => ({ ok: host !== undefined, detail: 'test', duration_ms: 1 }),
      async call(op) {
        if (host === undefined) throw new Error('connect ECONNREFUSED');
        if (op === 'services') return host.services;
        if (op === 'ports') return host.ports;
        throw new Error(`no operation ${op}`);
      },
    };
  },
};

const pgKind: ConnectorKind = {
  kind: 'postgresql',
  title: 'PostgreSQL (test)',
  description: 'a canned catalogue',
  capabilities: ['sql', 'discover'],
  operations: ['discover'],
  settings: [],
  create() {
    return {
      health: async () => ({ ok: true, detail: 'test', duration_ms: 1 }),
      call: async () => ({
        services: [{ name: 'orders-db', kind: 'datastore', hosts: ['10.0.0.2'] }],
      }),
    };
  },
};

let dir: string;
let app: ReturnType<typeof createHttpServer>;
let close: () => Promise<void>;
let db: ReturnType<typeof openDatabase>;
/** When services' episodes opened, as the estate asks the episodes domain (filled by a test). */
const openings: { service: string; t_open: string }[] = [];
let writer: Writer;
let projections: ReturnType<typeof createProjections>;
let ledgerStore: ReturnType<typeof createLedgerStore>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-discovery-int-'));
  const bench = openLedgerBench(join(dir, 'svc.db'), systemClock);
  ({ db, writer, projections, ledgerStore } = bench);
  const { ledger } = bench;
  const store = createEstateStore(db);
  const connectorsStore = createConnectorsStore(db);
  projections.register(store.projection);
  projections.register(connectorsStore.projection);
  const log = createLogger('silent');
  const connectors = createConnectorsService({
    registry: createRegistry([sshKind, pgKind, httpKind]),
    store: connectorsStore,
    ledger,
    writer,
    clock: systemClock,
    log,
    env: {},
    secretsDir: join(dir, 'secrets'),
    file: join(dir, 'connectors.json'),
    defaultConcurrency: 4,
  });
  connectors.start();
  const estate = createEstateService({
    store,
    ledger,
    writer,
    clock: systemClock,
    connectors: () => connectors.list().connectors,
    call: (name, op, args) => connectors.call(name, op, args),
    kinds: () => connectors.catalogue().kinds,
    timeoutS: 10,
    // The episodes domain's openings, as a test supplies them (no episodes are opened here).
    episodes: {
      openingsSince: (since) => openings.filter((o) => o.t_open >= since),
    },
  });
  app = createHttpServer({ log });
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
  await app.register(connectorsRoutes, { prefix: '/v1', connectors, mode: () => 'configuring' });
  await app.register(estateRoutes, { prefix: '/v1', estate, mode: () => 'configuring' });
  await app.ready();
  close = async () => {
    await app.close();
    await connectors.close();
    await writer.close();
    db.close();
  };
}, 30_000);

afterAll(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

function call(method: 'GET' | 'PUT' | 'POST', url: string, token: string, body?: unknown) {
  return app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
}

interface Job {
  status: string;
  progress: { done: number; total: number; step?: string };
  result: { per_connector: Record<string, { status: string; detail: string | null }> } | null;
}

async function discover(): Promise<Job> {
  const started = await call('POST', '/v1/discover', ADMIN_TOKEN);
  expect(started.statusCode, started.body).toBe(202);
  const { job_id } = started.json<{ job_id: string }>();
  for (let i = 0; i < 200; i++) {
    const job = (await call('GET', `/v1/jobs/${job_id}`, VIEWER_TOKEN)).json<Job>();
    if (job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the job did not finish');
}

interface View {
  services: { name: string; kind: string | null; hosts: string[]; origins: unknown[] }[];
  links: { from: string; to: string; origin: { connector: string | null; how: string } }[];
  candidates: { name: string; host: string; connector: string; how: string }[];
  unlinked: string[];
}
interface Suggestions {
  suggestions: { id: string; from: string; to: string; evidence: string; score: number }[];
}

describe('discovery from every connector that can', () => {
  it('reads ssh hosts, the http probe and the postgresql catalogue; skips what cannot', async () => {
    for (const [name, doc] of [
      ['host-a', { kind: 'ssh', settings: { host: '10.0.0.1' } }],
      ['host-b', { kind: 'ssh', settings: { host: '10.0.0.2' } }],
      ['host-gone', { kind: 'ssh', settings: { host: '10.0.0.99' } }],
      ['shop', { kind: 'http', settings: { url: 'http://10.0.0.1/' } }],
      ['pg', { kind: 'postgresql', settings: {} }],
    ] as const) {
      const res = await call('PUT', `/v1/connectors/${name}`, ADMIN_TOKEN, doc);
      expect(res.statusCode, res.body).toBe(200);
    }
    const job = await discover();
    expect(job).toMatchObject({
      status: 'done',
      progress: { done: 5, total: 5, step: 'done' },
      result: {
        per_connector: {
          'host-a': { status: 'ok', detail: null },
          'host-b': { status: 'ok', detail: null },
          'host-gone': { status: 'failed', detail: 'connector host-gone: connect ECONNREFUSED' },
          shop: { status: 'ok', detail: null },
          pg: { status: 'ok', detail: null },
        },
      },
    });

    const view = (await call('GET', '/v1/estate', VIEWER_TOKEN)).json<View>();
    expect(view.services.map((s) => [s.name, s.kind, s.hosts])).toEqual([
      ['app', 'service', ['10.0.0.1']],
      ['nginx', 'web', ['10.0.0.1']],
      ['orders-db', 'datastore', ['10.0.0.2']],
      ['postgresql', 'datastore', ['10.0.0.2']],
      ['shop', null, ['10.0.0.1']],
    ]);
    expect(view.services.find((s) => s.name === 'shop')?.origins).toEqual([
      { connector: 'shop', how: 'http probe http://10.0.0.1/' },
    ]);
    expect(view.links).toEqual([
      {
        from: 'app',
        to: 'postgresql',
        origin: { connector: 'host-a', how: 'observed tcp connection app → 10.0.0.2:5432' },
      },
    ]);
    expect(view.candidates).toEqual([
      {
        name: 'worker',
        host: '10.0.0.1',
        connector: 'host-a',
        how: 'ssh unit worker running, listening on no port',
      },
    ]);
    expect(view.unlinked).toEqual(['nginx', 'orders-db', 'shop']);
  });

  it('suggests, confirms and dismisses inferred links; each decision a ledger event', async () => {
    // nginx and orders-db open episodes together three times (nginx first).
    const now = Date.now();
    for (let i = 0; i < 3; i++) {
      const t = now - (i + 1) * 86_400_000;
      openings.push({ service: 'nginx', t_open: new Date(t).toISOString() });
      openings.push({ service: 'orders-db', t_open: new Date(t + 40_000).toISOString() });
    }
    openings.sort((a, b) => a.t_open.localeCompare(b.t_open));
    const list = (await call('GET', '/v1/estate/suggestions', VIEWER_TOKEN)).json<Suggestions>();
    const probe = suggestionId('shop', 'nginx');
    const together = suggestionId('orders-db', 'nginx');
    expect(list.suggestions.map((s) => [s.id, s.from, s.to, s.score])).toEqual([
      [together, 'orders-db', 'nginx', 1],
      [probe, 'shop', 'nginx', 0.8],
    ]);

    expect(
      (await call('POST', '/v1/estate/suggestions/confirm', VIEWER_TOKEN, { id: probe }))
        .statusCode,
    ).toBe(403);
    const missing = await call('POST', '/v1/estate/suggestions/confirm', ADMIN_TOKEN, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ field: 'id' });
    const unknown = await call('POST', '/v1/estate/suggestions/dismiss', ADMIN_TOKEN, {
      id: 'sug-0000000000000000',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: 'suggestion_not_found' });

    const confirmed = await call('POST', '/v1/estate/suggestions/confirm', ADMIN_TOKEN, {
      id: probe,
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const evidence =
      'the probe of shop (http://10.0.0.1/, connector shop) reaches 10.0.0.1:80, where nginx listens';
    expect(confirmed.json()).toEqual({
      id: probe,
      from: 'shop',
      to: 'nginx',
      status: 'confirmed',
      evidence,
      reason: null,
      link: {
        from: 'shop',
        to: 'nginx',
        origin: { connector: null, how: `confirmed suggestion: ${evidence}` },
      },
    });
    const again = await call('POST', '/v1/estate/suggestions/confirm', ADMIN_TOKEN, { id: probe });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'suggestion_decided' });

    const dismissed = await call('POST', '/v1/estate/suggestions/dismiss', ADMIN_TOKEN, {
      id: together,
      reason: 'both page on the same network blip',
    });
    expect(dismissed.statusCode, dismissed.body).toBe(200);
    expect(dismissed.json()).toMatchObject({
      status: 'dismissed',
      reason: 'both page on the same network blip',
      link: null,
    });
    expect((await call('GET', '/v1/estate/suggestions', VIEWER_TOKEN)).json<Suggestions>()).toEqual(
      { suggestions: [] },
    );

    const view = (await call('GET', '/v1/estate', VIEWER_TOKEN)).json<View>();
    expect(view.links.map((l) => [l.from, l.to, l.origin.how])).toContainEqual([
      'shop',
      'nginx',
      `confirmed suggestion: ${evidence}`,
    ]);
    const events = ledgerRows(db)
      .filter((e) => e.type.startsWith('estate.suggestion'))
      .map((e) => ({ type: e.type, actor: e.actor }));
    expect(events).toEqual([
      { type: 'estate.suggestion_confirmed', actor: 'admin-token' },
      { type: 'estate.suggestion_dismissed', actor: 'admin-token' },
    ]);
  });

  it('promotes a candidate named by an override, with its observed links', async () => {
    const put = await call('PUT', '/v1/estate/overrides', ADMIN_TOKEN, {
      services: { worker: { aliases: [] } },
    });
    expect(put.statusCode, put.body).toBe(200);
    const view = (await call('GET', '/v1/estate', VIEWER_TOKEN)).json<View>();
    expect(view.candidates).toEqual([]);
    expect(view.services.find((s) => s.name === 'worker')).toMatchObject({ hosts: ['10.0.0.1'] });
    expect(view.links.map((l) => `${l.from} → ${l.to}`)).toContain('worker → postgresql');
  });

  it('rebuilds observations and decided suggestions from the ledger alone', () => {
    const before = dumpProjections(db, projections);
    writer.transactNow(() => replayLedger(db, ledgerStore, projections));
    expect(dumpProjections(db, projections)).toEqual(before);
  });
});
