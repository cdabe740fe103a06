// The postgresql connector kind: connections, blocked sessions, replication, slow queries and
// non-default settings of a PostgreSQL server, for a read-only monitoring role (pg_monitor).
// Only fixed SQL runs (there is no "run this query" operation), and every session is made
// read-only (default_transaction_read_only) with a statement_timeout before its first query.
// A few idle connections are kept; a call whose signal aborts destroys its connection, and
// the server drops the backend at its next client_connection_check_interval (PostgreSQL 14+)
// or at statement_timeout.
import pg from 'pg';
import type { ConnectionOptions } from 'node:tls';
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import {
  blockedFrom,
  blockersFrom,
  connectionsFrom,
  factsFrom,
  replicasFrom,
  roleDetail,
  shortVersion,
  slowQueriesFrom,
  statementsFrom,
  type Row,
} from './postgresql.parse.js';
import { elapsedMs, networkErrorText, readInteger, readSecret, readString } from './settings.js';

const OPERATIONS = [
  'connections',
  'locks',
  'replication',
  'slow_queries',
  'setup',
  'discover',
] as const;
const SSL_MODES = ['disable', 'require', 'verify-full'] as const;
type SslMode = (typeof SSL_MODES)[number];

/**
 * One connection per connector: calls made at once (an investigation's checks) queue for it.
 * A database short of connection slots, the fault the packs look for, may leave the reader
 * only one, and every check must still be read through it.
 */
const MAX_OPEN = 1;
/** Idle connections kept for the next call. */
const MAX_IDLE = 1;
const IDLE_MS = 30_000;
/** A backstop for a caller whose signal has no deadline (a TCP port that never answers). */
const CONNECT_TIMEOUT_MS = 30_000;
const MAX_ROWS = 200;
const DEFAULT_MIN_S = 5;
const APPLICATION_NAME = 'svc-incident-response';

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

/** Waits for `work`, or runs `onAbort` (which must end the work) and fails when the signal fires. */
function abortable<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort();
      reject(abortReason(signal));
    };
    if (signal.aborted) {
      abort();
      work.catch(() => undefined);
      return;
    }
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(signal.aborted ? abortReason(signal) : (err as Error));
      },
    );
  });
}

function readRequired(settings: ResolvedSettings, name: string): string {
  const value = readString(settings, name);
  if (value === undefined) throw new Error(`setting ${name} is required`);
  if (/[\s\0]/.test(value.trim()) || value.trim() !== value)
    throw new Error(`setting ${name} must not contain spaces or control characters`);
  return value;
}

function readSslMode(settings: ResolvedSettings): SslMode {
  const value = readString(settings, 'sslmode') ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(value))
    throw new Error(`setting sslmode must be one of ${SSL_MODES.join(', ')}`);
  return value as SslMode;
}

function sslOptions(mode: SslMode): false | ConnectionOptions {
  if (mode === 'disable') return false;
  // require: encrypted but unverified, as libpq's sslmode=require; verify-full checks the
  // chain against the system CAs and the host name.
  return mode === 'require' ? { rejectUnauthorized: false } : { rejectUnauthorized: true };
}

function minSecondsArg(raw: unknown): number {
  if (raw === undefined) return DEFAULT_MIN_S;
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0 || raw > 86_400)
    throw new Error('argument min_s must be a number of seconds from 0 to 86400');
  return raw;
}

interface Session {
  readonly client: pg.Client;
  /** server_version_num, for the few columns that differ between versions */
  version: number;
  broken: boolean;
  idleTimer?: NodeJS.Timeout;
}

/** What the kind sends to the server; exported so the tests can prove sessions refuse writes. */
export interface PostgresPool {
  /** Runs fixed SQL on a read-only session; `what` names it in errors. */
  run(sql: string, params: readonly unknown[], what: string, signal: AbortSignal): Promise<Row[]>;
  /** server_version_num of the last session opened (0 before any). */
  version(): number;
  close(): Promise<void>;
}

export function createPostgresPool(settings: ResolvedSettings): PostgresPool {
  const host = readRequired(settings, 'host');
  const port = readInteger(settings, 'port', 5432, 1, 65_535);
  const database = readRequired(settings, 'database');
  const user = readRequired(settings, 'user');
  const password = readSecret(settings, 'password');
  const ssl = sslOptions(readSslMode(settings));
  const statementTimeoutS = readInteger(settings, 'statement_timeout_s', 10, 1, 300);
  const where = `${user}@${host}:${String(port)}/${database}`;

  const idle: Session[] = [];
  const open = new Set<Session>();
  /** Calls waiting for the connection, first come first served. */
  const waiting: (() => void)[] = [];
  let lastVersion = 0;
  let closed = false;

  /** Error text without the password, whatever the driver or server put in it. */
  function scrub(message: string): string {
    const pw = password?.reveal();
    return pw !== undefined && pw.length >= 3 ? message.split(pw).join('***') : message;
  }

  function explain(err: unknown, what: string): Error {
    const e = err as Error & { code?: string };
    // The server's own words for its errors; the socket's code for network ones.
    let said = err instanceof pg.DatabaseError ? e.message : networkErrorText(err);
    if (e.code === '28P01' || e.code === '28000')
      said = `${said}: check user and password (and pg_hba.conf)`;
    else if (/client password must be a string/i.test(said))
      said = 'the server asks for a password: set password';
    else if (e.code === '57014')
      said = `${said} (statement_timeout ${String(statementTimeoutS)} s)`;
    else if (/self[- ]signed|unable to verify|altnames/i.test(said))
      said = `${said}: the certificate is not trusted for ${host} (sslmode verify-full)`;
    else if (/does not support SSL/i.test(said)) said = `${said}: set sslmode disable`;
    return new Error(scrub(`postgresql ${what} at ${where}: ${said}`));
  }

  function destroy(s: Session): void {
    if (s.broken) return;
    s.broken = true;
    clearTimeout(s.idleTimer);
    open.delete(s);
    const i = idle.indexOf(s);
    if (i >= 0) idle.splice(i, 1);
    wake();
    // With a query or handshake under way, end() destroys the socket rather than waiting.
    s.client.end().catch(() => undefined);
  }

  async function connect(signal: AbortSignal): Promise<Session> {
    const client = new pg.Client({
      host,
      port,
      database,
      user,
      // A function, so the value sits in no config object that could be printed.
      ...(password !== undefined && { password: () => password.reveal() }),
      ssl,
      application_name: APPLICATION_NAME,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    const session: Session = { client, version: 0, broken: false };
    // A server that goes away between calls: drop the connection, the next call opens another.
    client.on('error', () => destroy(session));
    client.on('end', () => destroy(session));
    open.add(session);
    const step = <T>(work: Promise<T>) => abortable(work, signal, () => destroy(session));
    try {
      await step(client.connect());
      // SET rather than startup options: poolers such as pgbouncer refuse unknown startup
      // parameters. Nothing else runs on the session before these.
      const res = await step(
        client.query(
          `SELECT set_config('default_transaction_read_only', 'on', false),
                  set_config('statement_timeout', $1, false),
                  set_config('lock_timeout', $1, false),
                  current_setting('server_version_num')::int AS version`,
          [`${String(statementTimeoutS)}s`],
        ),
      );
      session.version = Number((res.rows[0] as Row | undefined)?.['version'] ?? 0);
      if (session.version >= 140_000)
        // Lets the server notice a connection we destroyed mid-query and stop the query.
        // Only some platforms have it (Linux does); elsewhere statement_timeout still ends it.
        await step(client.query(`SET client_connection_check_interval = '1s'`)).catch(
          (err: unknown) => {
            if (!(err instanceof pg.DatabaseError)) throw err;
          },
        );
    } catch (err) {
      destroy(session);
      throw err;
    }
    lastVersion = session.version;
    return session;
  }

  /** Lets the first call waiting for a connection look again. */
  function wake(): void {
    waiting.shift()?.();
  }

  /** Waits until a connection is released or closed (or the signal fires). */
  function slot(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        const i = waiting.indexOf(go);
        if (i >= 0) waiting.splice(i, 1);
        reject(abortReason(signal));
      };
      waiting.push(go);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  async function acquire(signal: AbortSignal): Promise<Session> {
    for (;;) {
      signal.throwIfAborted();
      if (closed) throw new Error(`postgresql connector for ${where} is closed`);
      for (let s = idle.pop(); s !== undefined; s = idle.pop()) {
        clearTimeout(s.idleTimer);
        if (!s.broken) return s;
      }
      if (open.size < MAX_OPEN) return connect(signal);
      await slot(signal);
    }
  }

  function release(s: Session): void {
    if (s.broken || closed || idle.length >= MAX_IDLE) {
      destroy(s);
      return;
    }
    s.idleTimer = setTimeout(() => destroy(s), IDLE_MS);
    s.idleTimer.unref();
    idle.push(s);
    wake();
  }

  return {
    async run(sql, params, what, signal) {
      let session: Session;
      try {
        session = await acquire(signal);
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw explain(err, what);
      }
      try {
        const res = await abortable(session.client.query(sql, params as unknown[]), signal, () =>
          destroy(session),
        );
        release(session);
        return res.rows as Row[];
      } catch (err) {
        // A statement's error leaves the session usable; a FATAL one, the socket's or an
        // abort does not.
        const usable =
          err instanceof pg.DatabaseError && err.severity === 'ERROR' && !signal.aborted;
        if (usable) release(session);
        else destroy(session);
        if (signal.aborted) throw abortReason(signal);
        throw explain(err, what);
      }
    },
    version: () => lastVersion,
    async close() {
      closed = true;
      for (const go of waiting.splice(0)) go();
      const all = [...open];
      for (const s of all) destroy(s);
      await Promise.all(all.map((s) => s.client.end().catch(() => undefined)));
    },
  };
}

// Only client backends count: the server's own workers are not connections people make.
const CONNECTIONS_SQL = `
SELECT (SELECT current_setting('max_connections')::int) AS max_connections,
       coalesce(state, 'unknown') AS state, coalesce(usename, '') AS role,
       coalesce(datname, '') AS database, coalesce(wait_event_type = 'Lock', false) AS waiting,
       count(*)::int AS n
  FROM pg_stat_activity
 WHERE backend_type = 'client backend'
 GROUP BY 2, 3, 4, 5`;

// query_start stands for when the wait began (pg_locks.waitstart is 14+ only): a blocked
// session waits inside its current statement.
const BLOCKED_SQL = `
SELECT a.pid, coalesce(a.usename, '') AS role, a.query, b.pids AS blocked_by,
       extract(epoch FROM clock_timestamp() - a.query_start)::float8 AS waiting_s
  FROM pg_stat_activity a
 CROSS JOIN LATERAL (SELECT pg_blocking_pids(a.pid) AS pids) b
 WHERE a.wait_event_type = 'Lock' AND cardinality(b.pids) > 0
 ORDER BY waiting_s DESC NULLS LAST
 LIMIT ${String(MAX_ROWS)}`;

const BLOCKERS_SQL = `
SELECT pid, coalesce(usename, '') AS role, state, query,
       extract(epoch FROM clock_timestamp() - xact_start)::float8 AS xact_s
  FROM pg_stat_activity
 WHERE pid = ANY($1::int[])
 ORDER BY xact_s DESC NULLS LAST`;

// On a standby that has replayed all it received, lag is 0 however old the last commit is
// (an idle primary sends nothing to replay).
const RECOVERY_SQL = `
SELECT pg_is_in_recovery() AS standby,
       CASE WHEN NOT pg_is_in_recovery() THEN NULL
            WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
            ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8
       END AS standby_lag_s`;

const REPLICAS_SQL = `
SELECT coalesce(nullif(application_name, ''), 'walreceiver') || '@' ||
         coalesce(host(client_addr), 'local') AS client,
       state,
       pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_receive_lsn()
                            ELSE pg_current_wal_lsn() END, replay_lsn)::float8 AS lag_bytes,
       extract(epoch FROM replay_lag)::float8 AS replay_lag_s
  FROM pg_stat_replication
 ORDER BY 1`;

// An open transaction that sits idle holds its locks and snapshot: it counts from xact_start.
const SLOW_SQL = `
SELECT * FROM (
  SELECT pid, coalesce(usename, '') AS role, coalesce(datname, '') AS database, state, query,
         extract(epoch FROM clock_timestamp() -
           CASE WHEN state LIKE 'idle in transaction%' THEN xact_start ELSE query_start END
         )::float8 AS running_s
    FROM pg_stat_activity
   WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
     AND state IS NOT NULL AND state <> 'idle'
) q
 WHERE running_s >= $1::float8
 ORDER BY running_s DESC
 LIMIT ${String(MAX_ROWS)}`;

const STATEMENTS_SQL = (version: number) => {
  const [mean, total] =
    version >= 130_000 ? ['mean_exec_time', 'total_exec_time'] : ['mean_time', 'total_time'];
  return `
SELECT query, calls::float8 AS calls, ${mean} AS mean_ms, ${total} AS total_ms
  FROM pg_stat_statements
 WHERE ${mean} >= $1::float8 * 1000
 ORDER BY ${mean} DESC
 LIMIT 20`;
};

// What an operator changed: settings from files, the command line, ALTER SYSTEM/DATABASE/ROLE.
// Not 'session'/'client' (this connection's own SETs) nor 'override' (computed at start).
const SETTINGS_SQL = `
SELECT name, current_setting(name) AS value
  FROM pg_settings
 WHERE source NOT IN ('default', 'override', 'session', 'client')
 ORDER BY name`;

const HEALTH_SQL = `
SELECT version() AS version, current_user AS role, r.rolsuper AS superuser,
       pg_has_role(current_user, 'pg_monitor', 'USAGE') AS monitor,
       pg_is_in_recovery() AS standby,
       EXISTS (SELECT 1
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p')
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
                  AND n.nspname NOT LIKE 'pg\\_temp\\_%' AND n.nspname NOT LIKE 'pg\\_toast%'
                  AND has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')) AS can_write
  FROM pg_roles r
 WHERE r.rolname = current_user`;

function createPostgresClient(settings: ResolvedSettings): ConnectorClient {
  const pool = createPostgresPool(settings);
  const host = readRequired(settings, 'host');
  const database = readRequired(settings, 'database');
  const service = readString(settings, 'service') ?? database;

  async function connections(signal: AbortSignal) {
    const rows = await pool.run(CONNECTIONS_SQL, [], 'connections', signal);
    return connectionsFrom(rows[0]?.['max_connections'], rows);
  }

  async function locks(signal: AbortSignal) {
    const blocked = blockedFrom(await pool.run(BLOCKED_SQL, [], 'locks', signal));
    const pids = [...new Set(blocked.flatMap((b) => b.blocked_by))];
    const blockers =
      pids.length === 0
        ? []
        : blockersFrom(await pool.run(BLOCKERS_SQL, [pids], 'locks (blockers)', signal));
    return { blocked, blockers };
  }

  async function replication(signal: AbortSignal) {
    const [recovery] = await pool.run(RECOVERY_SQL, [], 'replication', signal);
    const standby = recovery?.['standby'] === true;
    const replicas = replicasFrom(await pool.run(REPLICAS_SQL, [], 'replication', signal));
    const lag = recovery?.['standby_lag_s'];
    return {
      role: standby ? ('standby' as const) : ('primary' as const),
      replicas,
      standby_lag_s: typeof lag === 'number' ? Math.round(lag * 1000) / 1000 : null,
    };
  }

  async function slowQueries(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const minS = minSecondsArg(args['min_s']);
    const queries = slowQueriesFrom(await pool.run(SLOW_SQL, [minS], 'slow_queries', signal));
    const [ext] = await pool.run(
      `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements') AS present`,
      [],
      'slow_queries',
      signal,
    );
    if (ext?.['present'] !== true) return { queries };
    try {
      const rows = await pool.run(STATEMENTS_SQL(pool.version()), [minS], 'slow_queries', signal);
      return { queries, statements: statementsFrom(rows) };
    } catch {
      signal.throwIfAborted();
      // Installed but not loaded (shared_preload_libraries), or not readable: activity suffices.
      return { queries };
    }
  }

  async function setup(signal: AbortSignal) {
    const rows = await pool.run(SETTINGS_SQL, [], 'setup', signal);
    const [v] = await pool.run('SELECT version() AS version', [], 'setup', signal);
    return { facts: factsFrom(v?.['version'], rows) };
  }

  async function discover(signal: AbortSignal) {
    // Proves the database answers before the estate records it.
    await pool.run('SELECT 1', [], 'discover', signal);
    return { services: [{ name: service, kind: 'datastore' as const, hosts: [host] }] };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    let row: Row | undefined;
    try {
      [row] = await pool.run(HEALTH_SQL, [], 'health', signal);
    } catch (err) {
      signal.throwIfAborted();
      return { ok: false, detail: (err as Error).message, duration_ms: elapsedMs(started) };
    }
    const ms = elapsedMs(started);
    const detail = roleDetail({
      role: typeof row?.['role'] === 'string' ? row['role'] : '?',
      superuser: row?.['superuser'] === true,
      monitor: row?.['monitor'] === true,
      can_write: row?.['can_write'] === true,
      standby: row?.['standby'] === true,
    });
    return {
      ok: true,
      detail: `${shortVersion(row?.['version'])} in ${String(ms)} ms, ${detail}`,
      duration_ms: ms,
    };
  }

  return {
    health,
    async call(op, args, signal) {
      switch (op) {
        case 'connections':
          return connections(signal);
        case 'locks':
          return locks(signal);
        case 'replication':
          return replication(signal);
        case 'slow_queries':
          return slowQueries(args, signal);
        case 'setup':
          return setup(signal);
        case 'discover':
          return discover(signal);
        default:
          throw new Error(`postgresql has no operation ${JSON.stringify(op)}`);
      }
    },
    close: () => pool.close(),
  };
}

export const postgresqlKind: ConnectorKind = {
  kind: 'postgresql',
  title: 'PostgreSQL',
  description:
    'Connections, blocked sessions, replication, slow queries and changed settings of a PostgreSQL server, read with a read-only role (pg_monitor); every session is read-only.',
  capabilities: ['sql', 'discover'],
  settings: [
    {
      name: 'host',
      type: 'string',
      required: true,
      description:
        'Host name or address of the server (or a unix socket folder), e.g. db1.internal.',
    },
    {
      name: 'port',
      type: 'integer',
      required: false,
      default: 5432,
      minimum: 1,
      maximum: 65_535,
      description: 'TCP port of the server.',
    },
    {
      name: 'database',
      type: 'string',
      required: true,
      description: 'Database to connect to, e.g. app.',
    },
    {
      name: 'user',
      type: 'string',
      required: true,
      description:
        'A LOGIN role in pg_monitor with no write grants, e.g. svc_ro (a superuser works, with a warning in the health check).',
    },
    {
      name: 'password',
      type: 'secret',
      required: false,
      description: 'Password of the role (leave out for trust or peer authentication).',
    },
    {
      name: 'sslmode',
      type: 'string',
      required: false,
      default: 'disable',
      description:
        'disable, require (encrypted, certificate not checked) or verify-full (certificate checked against the system CAs and the host name).',
    },
    {
      name: 'service',
      type: 'string',
      required: false,
      description: 'The estate service this database is (default: the database name).',
    },
    {
      name: 'statement_timeout_s',
      type: 'integer',
      required: false,
      default: 10,
      minimum: 1,
      maximum: 300,
      description: 'statement_timeout and lock_timeout of every session, in seconds.',
    },
  ],
  operations: OPERATIONS,
  create: createPostgresClient,
};
