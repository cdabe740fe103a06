// The postgresql kind against Debian's PostgreSQL 15 (e2e/lab/postgres.ts): real sessions make
// each situation (idle, idle in a transaction, a held row lock, a long pg_sleep, a streaming
// standby), and the kind reads it back through a read-only pg_monitor role. Raw sockets
// cover what a healthy server cannot: a refused port and one that never answers.
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, until } from '../../../e2e/lab/processes.js';
import { startPostgres, type LabPostgres } from '../../../e2e/lab/postgres.js';
import { createLogger } from '../../logger.js';
import { createFakeClock } from '../../shared/clock.js';
import { Secret } from '../../shared/secret.js';
import type { ConnectorClient, ResolvedSettings } from '../kind.js';
import { createRegistry } from '../registry.js';
import { createConnectorRuntime } from '../runtime.js';
import { createPostgresPool, postgresqlKind } from './postgresql.js';
import type { BlockedSession, Blocker, Connections, SlowQuery } from './postgresql.parse.js';

const PASSWORD = 'Planted-pg-s3cret-7f1d';
const WRONG = 'Wrong-pg-guess-93ac';
const RW_PASSWORD = 'Planted-rw-s3cret-42be';

let lab: LabPostgres;
const sessions: pg.Client[] = [];
const clients: ConnectorClient[] = [];
/** Everything the kind said in this file: no planted secret may be in it. */
const said: string[] = [];

const signal = () => AbortSignal.timeout(10_000);

function settings(over: Record<string, ResolvedSettings[string]> = {}): ResolvedSettings {
  return {
    host: lab.host,
    port: lab.port,
    database: 'app',
    user: 'svc_ro',
    password: new Secret(PASSWORD),
    ...over,
  };
}

function client(over: Record<string, ResolvedSettings[string]> = {}): ConnectorClient {
  const c = postgresqlKind.create(settings(over));
  clients.push(c);
  return c;
}

async function call<T>(c: ConnectorClient, op: string, args = {}): Promise<T> {
  const answer = await c.call(op, args, signal());
  said.push(JSON.stringify(answer));
  return answer as T;
}

async function failure(p: Promise<unknown>): Promise<Error> {
  const err = (await p.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  )) as Error;
  said.push(err.message, String(err.stack));
  return err;
}

async function session(): Promise<pg.Client> {
  const s = await lab.session('app');
  sessions.push(s);
  return s;
}

async function pidOf(s: pg.Client): Promise<number> {
  return (await s.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
}

beforeAll(async () => {
  lab = await startPostgres({ preload: ['pg_stat_statements'] });
  await lab.query('CREATE DATABASE app');
  await lab.createReadOnlyRole('svc_ro', PASSWORD);
  const admin = await session();
  await admin.query(`
    CREATE EXTENSION pg_stat_statements;
    CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
    INSERT INTO accounts SELECT g, 100 FROM generate_series(1, 10) g;
    CREATE ROLE svc_rw LOGIN PASSWORD '${RW_PASSWORD}';
    GRANT INSERT, UPDATE, DELETE ON accounts TO svc_rw;`);
});

afterAll(async () => {
  await Promise.allSettled(clients.map(async (c) => c.close?.()));
  await Promise.allSettled(sessions.map((s) => s.end()));
  await lab?.stop();
});

describe('postgresql kind against a real server', () => {
  it('passes health with the version and a read-only role', async () => {
    const health = await client().health(signal());
    said.push(health.detail);
    expect(health.ok).toBe(true);
    expect(health.detail).toMatch(/^PostgreSQL 15\.\d+ in \d+ ms, role svc_ro \(not superuser\)$/);
  });

  it('passes health for a superuser or a role that can write, with a warning', async () => {
    // The superuser over the lab's unix socket (trust): host may be a socket folder.
    const su = await client({ host: lab.dir, user: 'postgres', password: undefined }).health(
      signal(),
    );
    expect(su.ok).toBe(true);
    expect(su.detail).toMatch(/role postgres is a SUPERUSER: use a LOGIN role in pg_monitor/);
    const rw = await client({ user: 'svc_rw', password: new Secret(RW_PASSWORD) }).health(signal());
    said.push(su.detail, rw.detail);
    expect(rw.ok).toBe(true);
    expect(rw.detail).toMatch(
      /role svc_rw \(not superuser\), warning: the role can write tables here .*, warning: not in pg_monitor/,
    );
  });

  it('counts connections by state, role and database', async () => {
    await session(); // idle
    const inTx = await session();
    await inTx.query('BEGIN; SELECT 1');
    const busy = await session();
    const sleeping = busy.query('SELECT pg_sleep(30)').catch(() => undefined);
    await until('the sleeper', async () =>
      (await lab.query(`SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'`))
        .length > 0
        ? true
        : undefined,
    );
    const c = await call<Connections>(client(), 'connections');
    expect(c.max_connections).toBe(40);
    expect(c.by_state['idle']).toBeGreaterThanOrEqual(2); // `idle` and the first admin session
    expect(c.by_state['idle in transaction']).toBe(1);
    expect(c.by_state['active']).toBeGreaterThanOrEqual(2); // the sleeper and this very call
    expect(c.total).toBe(Object.values(c.by_state).reduce((a, b) => a + b, 0));
    expect(c.by_role).toEqual(
      expect.arrayContaining([
        { role: 'postgres', n: expect.any(Number) as number },
        { role: 'svc_ro', n: expect.any(Number) as number },
      ]),
    );
    expect(c.by_role.find((r) => r.role === 'postgres')?.n).toBeGreaterThanOrEqual(4);
    expect(c.by_database[0]).toMatchObject({ database: 'app' });
    expect(c.waiting).toBe(0);
    await inTx.query('ROLLBACK');
    await lab.query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity
                      WHERE query = 'SELECT pg_sleep(30)'`);
    await sleeping;
  });

  it('answers the checks of an investigation, made at once, over one connection', async () => {
    // A database short of connection slots (the fault the packs look for) leaves the reader
    // one slot: the checks an investigation makes in parallel must queue, not each connect.
    const mine = async () =>
      (
        await lab.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'svc-incident-response'`,
        )
      )[0]?.['n'];
    const before = Number(await mine());
    const c = client();
    const answers = await Promise.all([
      call(c, 'connections'),
      call(c, 'locks'),
      call(c, 'slow_queries', { min_s: 30 }),
      call(c, 'replication'),
      call(c, 'connections'),
    ]);
    expect(answers).toHaveLength(5);
    expect(Number(await mine()) - before).toBe(1);
  });

  it('shows a session blocked on a row lock, who blocks it, and clips its query', async () => {
    const holder = await session();
    const waiter = await session();
    const holderPid = await pidOf(holder);
    const waiterPid = await pidOf(waiter);
    await holder.query('BEGIN; UPDATE accounts SET balance = balance - 1 WHERE id = 1');
    const long = `UPDATE accounts SET balance = balance + 1 WHERE id = 1 /* ${'x'.repeat(600)} */`;
    const waiting = waiter.query(long);
    await until('the waiter to block', async () =>
      (
        await lab.query(
          `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
          [waiterPid],
        )
      ).length > 0
        ? true
        : undefined,
    );
    const ro = client();
    const { blocked, blockers } = await call<{ blocked: BlockedSession[]; blockers: Blocker[] }>(
      ro,
      'locks',
    );
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({ pid: waiterPid, role: 'postgres', blocked_by: [holderPid] });
    expect(blocked[0]?.waiting_s).toBeGreaterThanOrEqual(0);
    expect(blocked[0]?.query).toBe(`${long.slice(0, 500)}…`);
    expect(blockers).toEqual([
      expect.objectContaining({ pid: holderPid, role: 'postgres', state: 'idle in transaction' }),
    ]);
    expect((await call<Connections>(ro, 'connections')).waiting).toBe(1);
    await holder.query('ROLLBACK');
    await waiting;
    expect((await call<{ blocked: unknown[] }>(ro, 'locks')).blocked).toEqual([]);
  });

  it('lists queries running longer than min_s, and slow statements from pg_stat_statements', async () => {
    const s = await session();
    const pid = await pidOf(s);
    await s.query('SELECT pg_sleep(1.1)'); // a slow statement for pg_stat_statements
    const sleeping = s.query('SELECT pg_sleep(30)').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1200));
    const ro = client();
    const found = await call<{ queries: SlowQuery[]; statements?: unknown[] }>(ro, 'slow_queries', {
      min_s: 1,
    });
    expect(found.queries).toEqual([
      expect.objectContaining({
        pid,
        role: 'postgres',
        database: 'app',
        state: 'active',
        query: 'SELECT pg_sleep(30)',
      }),
    ]);
    expect(found.queries[0]?.running_s).toBeGreaterThanOrEqual(1);
    expect(found.statements).toEqual(
      expect.arrayContaining([expect.objectContaining({ query: 'SELECT pg_sleep($1)', calls: 1 })]),
    );
    const none = await call<{ queries: SlowQuery[] }>(ro, 'slow_queries', { min_s: 60 });
    expect(none.queries).toEqual([]);
    await expect(ro.call('slow_queries', { min_s: -1 }, signal())).rejects.toThrow(/min_s/);
    await lab.query('SELECT pg_cancel_backend($1)', [pid]);
    await sleeping;
  });

  it('gives non-default settings and the version, with credentials in settings masked', async () => {
    // primary_conninfo is read only on a standby, but pg_settings shows it anyway.
    await lab.query(
      `ALTER SYSTEM SET primary_conninfo = 'host=db0 user=repl password=${PASSWORD}'`,
    );
    await lab.query('SELECT pg_reload_conf()');
    try {
      const facts = await until('the reloaded setting', async () => {
        const f = (await call<{ facts: Record<string, string> }>(client(), 'setup')).facts;
        return f['primary_conninfo'] === undefined ? undefined : f;
      });
      expect(facts['version']).toMatch(/^PostgreSQL 15\.\d+/);
      expect(facts).toMatchObject({
        max_connections: '40',
        fsync: 'off',
        shared_preload_libraries: 'pg_stat_statements',
        primary_conninfo: 'host=db0 user=repl password=***',
      });
      // This connection's own SETs are not the server's setup.
      expect(facts['default_transaction_read_only']).toBeUndefined();
      expect(facts['statement_timeout']).toBeUndefined();
    } finally {
      await lab.query('ALTER SYSTEM RESET primary_conninfo');
      await lab.query('SELECT pg_reload_conf()');
    }
  });

  it('discovers the database as a datastore service', async () => {
    expect(await call(client(), 'discover')).toEqual({
      services: [{ name: 'app', kind: 'datastore', hosts: ['127.0.0.1'] }],
    });
    expect(await call(client({ service: 'billing-db' }), 'discover')).toEqual({
      services: [{ name: 'billing-db', kind: 'datastore', hosts: ['127.0.0.1'] }],
    });
  });

  it('has no operation that runs SQL, and its sessions refuse writes even for a writing role', async () => {
    const admin = await session();
    const totals = async (): Promise<unknown[]> =>
      (
        await admin.query<{ n: number; b: number }>(
          'SELECT count(*)::int AS n, sum(balance)::int AS b FROM accounts',
        )
      ).rows;
    const before = await totals();
    expect(before).toEqual([{ n: 10, b: expect.any(Number) as number }]);
    const rw = client({ user: 'svc_rw', password: new Secret(RW_PASSWORD) });
    for (const op of ['query', 'sql', 'execute'])
      await expect(
        rw.call(op, { sql: 'INSERT INTO accounts VALUES (99, 0)' }, signal()),
      ).rejects.toThrow(`postgresql has no operation "${op}"`);
    // Every operation answers for a role outside pg_monitor too (it sees less).
    for (const op of ['connections', 'locks', 'replication', 'slow_queries', 'setup'])
      await expect(call(rw, op)).resolves.toBeDefined();
    // The kind's own session path, which every operation goes through:
    const pool = createPostgresPool(
      settings({ user: 'svc_rw', password: new Secret(RW_PASSWORD) }),
    );
    try {
      const err = await failure(
        pool.run('INSERT INTO accounts VALUES (99, 0)', [], 'write test', signal()),
      );
      expect(err.message).toMatch(
        /^postgresql write test at svc_rw@127\.0\.0\.1:\d+\/app: cannot execute INSERT in a read-only transaction$/,
      );
      await expect(
        pool.run('UPDATE accounts SET balance = 0', [], 'write test', signal()),
      ).rejects.toThrow(/read-only transaction/);
      // The same session answers after a refused statement, still read-only.
      const [row] = await pool.run(
        `SELECT current_setting('default_transaction_read_only') AS ro,
                current_setting('statement_timeout') AS st,
                current_setting('transaction_read_only') AS tx`,
        [],
        'settings',
        signal(),
      );
      expect(row).toEqual({ ro: 'on', st: '10s', tx: 'on' });
    } finally {
      await pool.close();
    }
    expect(await totals()).toEqual(before);
  });

  it('stops a statement at statement_timeout_s', async () => {
    const pool = createPostgresPool(settings({ statement_timeout_s: 1 }));
    try {
      const started = Date.now();
      const err = await failure(pool.run('SELECT pg_sleep(5)', [], 'sleep', signal()));
      expect(Date.now() - started).toBeLessThan(3000);
      expect(err.message).toMatch(
        /canceling statement due to statement timeout \(statement_timeout 1 s\)$/,
      );
    } finally {
      await pool.close();
    }
  });

  it('drops a call when its signal aborts, and the server ends the query', async () => {
    const pool = createPostgresPool(settings());
    try {
      await pool.run('SELECT 1', [], 'warm', signal());
      const started = Date.now();
      const err = await failure(
        pool.run('SELECT pg_sleep(20)', [], 'sleep', AbortSignal.timeout(300)),
      );
      expect(err.name).toBe('TimeoutError');
      expect(Date.now() - started).toBeLessThan(2000);
      // client_connection_check_interval: the backend notices the closed socket.
      await until(
        'the abandoned query to end',
        async () =>
          (await lab.query(`SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(20)'`))
            .length === 0
            ? true
            : undefined,
        5000,
      );
      // The pool opens a new session for the next call.
      expect(await pool.run('SELECT 2 AS n', [], 'after', signal())).toEqual([{ n: 2 }]);
      await expect(pool.run('SELECT 1', [], 'x', AbortSignal.abort())).rejects.toMatchObject({
        name: 'AbortError',
      });
    } finally {
      await pool.close();
    }
  });

  it('says a wrong password clearly, without the password', async () => {
    const bad = client({ password: new Secret(WRONG) });
    const health = await bad.health(signal());
    said.push(health.detail);
    expect(health.ok).toBe(false);
    expect(health.detail).toMatch(
      /^postgresql health at svc_ro@127\.0\.0\.1:\d+\/app: password authentication failed for user "svc_ro": check user and password/,
    );
    const err = await failure(bad.call('connections', {}, signal()));
    expect(err.message).toMatch(/password authentication failed/);
    const none = await client({ password: undefined }).health(signal());
    said.push(none.detail);
    expect(none).toMatchObject({ ok: false });
    expect(none.detail).toMatch(/the server asks for a password: set password/);
    const nodb = await client({ database: 'nope' }).health(signal());
    said.push(nodb.detail);
    expect(nodb.detail).toMatch(/database "nope" does not exist/);
    const tls = await client({ sslmode: 'require' }).health(signal());
    said.push(tls.detail);
    expect(tls.detail).toMatch(/does not support SSL connections: set sslmode disable$/);
  });
});

describe('postgresql kind with a standby', () => {
  let standby: LabPostgres;
  beforeAll(async () => {
    standby = await startPostgres({ standbyOf: lab });
  });
  afterAll(async () => {
    await standby?.stop();
  });

  it('shows the streaming replica on the primary and the lag on the standby', async () => {
    const primary = client();
    type Replication = {
      role: string;
      replicas: { client: string; state: string; lag_bytes: number | null }[];
      standby_lag_s: number | null;
    };
    const seen = await until('the replica to stream', async () => {
      const r = await call<Replication>(primary, 'replication');
      // replay_lsn is null until the standby's first feedback.
      return r.replicas[0]?.state === 'streaming' && r.replicas[0].lag_bytes !== null
        ? r
        : undefined;
    });
    expect(seen).toMatchObject({ role: 'primary', standby_lag_s: null });
    expect(seen.replicas).toHaveLength(1);
    expect(seen.replicas[0]?.client).toMatch(/@local$/); // over the unix socket
    expect(seen.replicas[0]?.lag_bytes).toBeGreaterThanOrEqual(0);

    const onStandby = client({ port: standby.port });
    const r = await call<Replication>(onStandby, 'replication');
    expect(r).toMatchObject({ role: 'standby', replicas: [] });
    expect(r.standby_lag_s).toBeGreaterThanOrEqual(0);
    const health = await onStandby.health(signal());
    expect(health.detail).toMatch(/role svc_ro \(not superuser\), standby$/);
  });
});

describe('postgresql kind over TLS', () => {
  let tlsLab: LabPostgres;
  beforeAll(async () => {
    tlsLab = await startPostgres({ tls: true });
    await tlsLab.createReadOnlyRole('svc_ro', PASSWORD);
  });
  afterAll(async () => {
    await tlsLab?.stop();
  });

  it('encrypts with sslmode require, and verify-full refuses a self-signed certificate', async () => {
    const over = { port: tlsLab.port, database: 'postgres' };
    const pool = createPostgresPool(settings({ ...over, sslmode: 'require' }));
    try {
      const rows = await pool.run(
        'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
        [],
        'tls',
        signal(),
      );
      expect(rows).toEqual([{ ssl: true }]);
    } finally {
      await pool.close();
    }
    const verified = await client({ ...over, sslmode: 'verify-full' }).health(signal());
    said.push(verified.detail);
    expect(verified.ok).toBe(false);
    expect(verified.detail).toMatch(
      /self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\): the certificate is not trusted for 127\.0\.0\.1 \(sslmode verify-full\)$/,
    );
  });
});

describe('postgresql kind when the server is dead or silent', () => {
  let silent: Server;
  let silentPort: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    silent = createNetServer((s) => sockets.push(s));
    silentPort = await freePort();
    await new Promise<void>((r) => silent.listen(silentPort, '127.0.0.1', r));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('fails health fast when nothing listens', async () => {
    const started = Date.now();
    const health = await client({ port: await freePort() }).health(AbortSignal.timeout(5000));
    said.push(health.detail);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(health.ok).toBe(false);
    expect(health.detail).toMatch(
      /^postgresql health at svc_ro@127\.0\.0\.1:\d+\/app: .*ECONNREFUSED/,
    );
  });

  it('gives up when the signal times out on a port that never answers', async () => {
    const hung = client({ port: silentPort });
    const started = Date.now();
    const err = await failure(hung.health(AbortSignal.timeout(300)));
    expect(err.name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(hung.call('locks', {}, AbortSignal.timeout(300))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
  });

  it('shows failed health checks within timeout_s through the connector runtime', async () => {
    const doc = (port: number) => ({
      kind: 'postgresql',
      settings: {
        host: '127.0.0.1',
        port,
        database: 'app',
        user: 'svc_ro',
        password: { env: 'PG_PASSWORD' },
      },
      timeout_s: 1,
    });
    const at = '2026-01-01T00:00:00.000Z';
    const deadPort = await freePort();
    const runtime = createConnectorRuntime({
      registry: createRegistry([postgresqlKind]),
      source: () =>
        [
          ['db', lab.port],
          ['dead', deadPort],
          ['silent', silentPort],
        ].map(([name, port]) => ({
          name: String(name),
          document: doc(Number(port)),
          set_by: 'alice',
          set_at: at,
        })),
      env: { PG_PASSWORD: PASSWORD },
      defaultConcurrency: 2,
      log: createLogger('silent'),
      clock: createFakeClock(),
    });
    try {
      const started = Date.now();
      runtime.rebuild();
      await runtime.settled();
      expect(Date.now() - started).toBeLessThan(3000);
      const health = Object.fromEntries(runtime.list().map((c) => [c.name, c.last_health]));
      said.push(JSON.stringify(runtime.list()));
      expect(health['db']).toMatchObject({ ok: true });
      expect(health['dead']).toMatchObject({ ok: false });
      expect(health['dead']?.detail).toMatch(/ECONNREFUSED/);
      expect(health['silent']).toMatchObject({
        ok: false,
        detail: 'connector silent: timed out after 1 s',
      });
      expect(await runtime.call('db', 'discover', {})).toMatchObject({
        services: [{ name: 'app' }],
      });
    } finally {
      await runtime.close();
    }
  });
});

describe('planted secrets', () => {
  it('never appear in any answer, health detail or error of this file', () => {
    expect(said.length).toBeGreaterThan(20);
    for (const text of said) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(WRONG);
      expect(text).not.toContain(RW_PASSWORD);
    }
  });
});
