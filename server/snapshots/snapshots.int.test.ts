// Snapshots end to end before the app wires them: a real SQLite file, the real connectors
// runtime (limits and timeouts) and real systems: Debian's Prometheus, restarted with an
// edited rule file, a git repository that gets a commit, and a Prometheus address that never
// answers. A change becomes one snapshot.changed event with the right diff; the silent one
// fails alone, within its timeout, without holding back the others.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrometheus, until, type Proc } from '../../e2e/lab/processes.js';
import {
  createConnectorRuntime,
  createRegistry,
  KINDS,
  type ConnectorEntry,
  type ConnectorRuntime,
} from '../connectors/index.js';
import { loadMigrations, migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { createWriter, type Writer } from '../db/writer.js';
import { snapshotsCheck } from '../doctor/index.js';
import { createLedgerService, createLedgerStore, createProjections } from '../ledger/index.js';
import { createLogger } from '../logger.js';
import { systemClock } from '../shared/clock.js';
import {
  createSnapshotsService,
  createSnapshotsStore,
  type SnapshotsService,
  type SnapshotsStore,
} from './index.js';
import { eventCatalogue } from '../compose/index.js';
import { ledgerRows } from '../testing/ledger-rows.js';

const MIGRATIONS = fileURLToPath(new URL('../db/migrations/', import.meta.url));
const rules = (expr: string, extra = '') => `groups:
  - name: lab
    rules:
      - alert: LabValueHigh
        expr: ${expr}
        for: 0s
        labels: { severity: critical, service: lab-api }
${extra}`;
const EXTRA = `  - name: extra
    rules:
      - record: lab:value:max
        expr: max(lab_value)
`;

let dir: string;
let repo: string;
let exporter: Server;
let exporterTarget: string;
let silent: ReturnType<typeof createNetServer>;
const sockets: Socket[] = [];
let prom: Proc;
let entries: ConnectorEntry[];
let runtime: ConnectorRuntime;
let writer: Writer;
let db: ReturnType<typeof openDatabase>;
let store: SnapshotsStore;
let snapshots: SnapshotsService;

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function git(args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Dana Deploy',
      GIT_AUTHOR_EMAIL: 'dana@example.test',
      GIT_COMMITTER_NAME: 'Dana Deploy',
      GIT_COMMITTER_EMAIL: 'dana@example.test',
    },
  });
}

const prometheusEntry = (name: string, url: string, timeout_s = 10): ConnectorEntry => ({
  name,
  document: { kind: 'prometheus', settings: { url }, timeout_s },
  set_by: 'test',
  set_at: null,
});

const events = (type: string) =>
  ledgerRows(db)
    .filter((e) => e.type === type)
    .map((e) => JSON.parse(e.data) as Record<string, unknown>);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-snapshots-int-'));
  repo = join(dir, 'deploy');
  mkdirSync(repo);
  git(['init', '-q', '-b', 'main']);
  writeFileSync(join(repo, 'app.yaml'), 'image: app:v1\n');
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'Deploy v1']);

  exporter = createHttpServer((_req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end('# TYPE lab_value gauge\nlab_value 0.5\n');
  });
  exporterTarget = `127.0.0.1:${String(await listen(exporter))}`;
  silent = createNetServer((s) => sockets.push(s)); // accepts, never answers
  const silentPort = await listen(silent);
  prom = await startPrometheus(exporterTarget, '127.0.0.1:1', rules('lab_value > 0.9'));

  entries = [
    prometheusEntry('prom', prom.url),
    prometheusEntry('stuck', `http://127.0.0.1:${String(silentPort)}`, 1),
    {
      name: 'repo',
      document: { kind: 'git', settings: { path: repo } },
      set_by: 'test',
      set_at: null,
    },
  ];
  const registry = createRegistry(KINDS);
  runtime = createConnectorRuntime({
    registry,
    source: () => entries,
    env: {},
    defaultConcurrency: 4,
    log: createLogger('silent'),
    clock: systemClock,
  });
  runtime.rebuild();

  db = openDatabase(join(dir, 'svc.db'));
  migrate(db, loadMigrations(MIGRATIONS));
  writer = createWriter(db);
  const projections = createProjections();
  store = createSnapshotsStore(db);
  projections.register(store.projection);
  const ledger = createLedgerService({
    inTransaction: () => db.inTransaction,
    store: createLedgerStore(db),
    writer,
    clock: systemClock,
    projections,
    events: eventCatalogue(),
  });
  snapshots = createSnapshotsService({
    store,
    ledger,
    writer,
    clock: systemClock,
    // As the app will wire it: the connectors whose kind lists `setup`.
    sources: () =>
      runtime.list().filter((c) => registry.get(c.kind)?.operations.includes('setup') === true),
    call: (name, op, args) => runtime.call(name, op, args),
    intervalS: 600,
    log: createLogger('silent'),
  });
}, 60_000);

afterAll(async () => {
  await snapshots?.stop();
  await runtime?.close();
  await writer?.close();
  db?.close();
  await prom?.stop();
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent?.close(r));
  await new Promise((r) => exporter?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('what-changed snapshots against real systems', () => {
  it('takes a first snapshot of each; the silent one fails alone within its timeout', async () => {
    const started = Date.now();
    expect(await snapshots.runNow()).toEqual({ prom: 'first', repo: 'first', stuck: 'failed' });
    expect(Date.now() - started).toBeLessThan(5000);
    const first = events('snapshot.changed');
    expect(first.map((e) => [e['connector'], e['first']])).toEqual(
      expect.arrayContaining([
        ['prom', true],
        ['repo', true],
      ]),
    );
    const promFacts = store.facts('prom') ?? {};
    expect(promFacts['version']).toMatch(/^2\./);
    expect(promFacts['rule_group.rules.yml/lab']).toMatch(/^[0-9a-f]{64}$/);
    expect(store.facts('repo')).toMatchObject({
      head: git(['rev-parse', 'HEAD']).trim(),
      branch: 'main',
    });
    expect(events('snapshot.failed')).toEqual([
      { connector: 'stuck', detail: 'connector stuck: timed out after 1 s' },
    ]);
  });

  it('writes nothing when nothing changed, and no second failure event', async () => {
    const before = ledgerRows(db).length;
    expect(await snapshots.runNow()).toEqual({
      prom: 'unchanged',
      repo: 'unchanged',
      stuck: 'failed',
    });
    expect(ledgerRows(db).length).toEqual(before);
    expect(store.read('prom')?.status).toBe('ok');
  });

  it('records the diff when Prometheus comes back with an edited rule file', async () => {
    const since = new Date().toISOString();
    const old = store.facts('prom') ?? {};
    await prom.stop();
    prom = await startPrometheus(exporterTarget, '127.0.0.1:1', rules('lab_value > 0.8', EXTRA));
    entries = entries.map((e) => (e.name === 'prom' ? prometheusEntry('prom', prom.url) : e));
    runtime.rebuild();
    await until('the rules loaded', async () => {
      const facts = ((await runtime.call('prom', 'setup', {})) as { facts: Record<string, string> })
        .facts;
      return facts['rule_group.rules.yml/extra'] === undefined ? undefined : true;
    });
    expect(await snapshots.runNow()).toMatchObject({ prom: 'changed', repo: 'unchanged' });
    const changes = snapshots.changesSince(since);
    expect(changes).toHaveLength(1);
    const change = changes[0];
    expect(change).toMatchObject({ connector: 'prom', removed: {} });
    expect(change?.first).toBeUndefined();
    // The edited group changed and the new one was added. Prometheus prints rule_files with
    // their absolute path, and the lab's folder differs between the two runs, so that
    // section (and the whole configuration's hash) moved too.
    expect(change?.added).toEqual({
      'rule_group.rules.yml/extra': expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
    });
    expect(change?.changed['rule_group.rules.yml/lab']).toEqual({
      from: old['rule_group.rules.yml/lab'],
      to: store.facts('prom')?.['rule_group.rules.yml/lab'],
    });
    expect(Object.keys(change?.changed ?? {}).sort()).toEqual([
      'config.rule_files',
      'config_sha256',
      'rule_group.rules.yml/lab',
    ]);
    expect(events('snapshot.changed').at(-1)).toEqual({
      connector: 'prom',
      added: change?.added,
      removed: {},
      changed: change?.changed,
    });
  });

  it('records the new head after a git commit', async () => {
    const since = new Date().toISOString();
    const before = git(['rev-parse', 'HEAD']).trim();
    writeFileSync(join(repo, 'app.yaml'), 'image: app:v2\n');
    git(['commit', '-q', '-am', 'Deploy v2']);
    const after = git(['rev-parse', 'HEAD']).trim();
    expect(await snapshots.runNow()).toMatchObject({ repo: 'changed', prom: 'unchanged' });
    const [change] = snapshots.changesSince(since);
    expect(change).toMatchObject({
      connector: 'repo',
      added: {},
      removed: {},
      changed: { head: { from: before, to: after } },
    });
    // The commit time moves with the head (unless both fell in the same second).
    for (const key of Object.keys(change?.changed ?? {}))
      expect(['head', 'head_committed_at']).toContain(key);
  });

  it('tells the doctor which connection is stale, and why', async () => {
    const f = snapshots.freshness();
    expect(f.connectors.map((c) => [c.connector, c.status, c.fresh])).toEqual([
      ['prom', 'ok', true],
      ['repo', 'ok', true],
      ['stuck', 'failed', false],
    ]);
    const r = await snapshotsCheck(() => snapshots.freshness()).run();
    expect(r.status).toBe('warn');
    expect(r.detail).toBe(
      '1 of 3 not read within 30 min: stuck: never read; failing: connector stuck: timed out after 1 s',
    );
  });
});
