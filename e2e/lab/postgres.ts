// The lab's PostgreSQL: Debian's PostgreSQL 15 in a temporary folder, started for a test and
// stopped afterwards. The superuser reaches it over a unix socket in that folder (trust);
// everyone else over TCP with a password (scram-sha-256). Durability is off (fsync=off): the
// data is thrown away, and start-up is what the tests wait on.
import { execFileSync, spawn, type SpawnOptions } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort, requireProgram, until } from './processes.js';

export const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface LabPostgres {
  readonly host: string;
  readonly port: number;
  /** The temporary folder: data in `<dir>/data`, the unix socket in `<dir>`. */
  readonly dir: string;
  /** Superuser `postgres` over the unix socket (no password), for pg's connectionString. */
  readonly superuserUrl: string;
  output(): string;
  /** Runs SQL as the superuser on a fresh session and gives its rows. */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** A new superuser session the caller ends (to hold locks, sleep, sit idle in a transaction). */
  session(database?: string): Promise<pg.Client>;
  /** A LOGIN role in pg_monitor with no write grants, reachable over TCP with `password`. */
  createReadOnlyRole(name: string, password: string): Promise<void>;
  stop(): Promise<void>;
}

/** PostgreSQL refuses to run as root: the lab runs it as the `postgres` user when it is root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgres(
  opts: {
    address?: string;
    maxConnections?: number;
    /** shared_preload_libraries, e.g. ['pg_stat_statements'] */
    preload?: readonly string[];
    /** Start a streaming standby of this (running) lab server instead of a new cluster. */
    standbyOf?: LabPostgres;
    /** Serve TLS too, with a fresh self-signed certificate for CN=localhost (`<dir>/server.crt`). */
    tls?: boolean;
  } = {},
): Promise<LabPostgres> {
  const postgres = join(PG_BIN, 'postgres');
  requireProgram(postgres, 'postgresql-15');
  const address = opts.address ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'lab-pg-'));
  const data = join(dir, 'data');
  const user = runAs();
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const spawnOpts: SpawnOptions = {
    ...(user ?? {}),
    cwd: dir,
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  let out = '';
  const collect = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));

  // A standby is a base backup of its primary (over the primary's unix socket) that follows it.
  const [program, args] =
    opts.standbyOf === undefined
      ? [
          'initdb',
          [
            '-D',
            data,
            '-U',
            'postgres',
            '--auth-local=trust',
            '--auth-host=scram-sha-256',
            '--encoding=UTF8',
            '--locale=C',
            '--no-sync',
            '--no-instructions',
          ],
        ]
      : [
          'pg_basebackup',
          ['-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync', '-U', 'postgres'].concat([
            '-h',
            opts.standbyOf.dir,
            '-p',
            String(opts.standbyOf.port),
          ]),
        ];
  const init = spawn(join(PG_BIN, program), args, spawnOpts);
  init.stdout?.on('data', collect);
  init.stderr?.on('data', collect);
  const code = await new Promise<number | null>((resolve, reject) => {
    init.once('error', reject);
    init.once('exit', resolve);
  });
  if (code !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${program} failed (exit ${String(code)}):\n${out}`);
  }

  const tlsArgs: string[] = [];
  if (opts.tls === true) {
    // Made as the server's user: PostgreSQL wants its key owned by itself and private.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ].concat(['-keyout', 'server.key', '-out', 'server.crt']),
      { ...(user ?? {}), cwd: dir, stdio: 'ignore' },
    );
    chmodSync(join(dir, 'server.key'), 0o600);
    tlsArgs.push('-c', 'ssl=on', '-c', `ssl_cert_file=${join(dir, 'server.crt')}`);
    tlsArgs.push('-c', `ssl_key_file=${join(dir, 'server.key')}`);
  }
  const port = await freePort(address);
  const child = spawn(
    postgres,
    [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${address}`,
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      `max_connections=${String(opts.maxConnections ?? 40)}`,
      '-c',
      `shared_preload_libraries=${(opts.preload ?? []).join(',')}`,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'shared_buffers=16MB',
      '-c',
      'logging_collector=off',
      '-c',
      'log_min_messages=warning',
      ...tlsArgs,
      '-c',
      'log_min_error_statement=panic',
      // Fast lock-wait reporting is not needed; deadlock checks would only add noise.
      '-c',
      'deadlock_timeout=60s',
    ],
    spawnOpts,
  );
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const superuserUrl = `postgresql://postgres@/postgres?host=${encodeURIComponent(dir)}&port=${String(port)}`;
  const connect = async (database = 'postgres'): Promise<pg.Client> => {
    const client = new pg.Client({ host: dir, port, user: 'postgres', database });
    client.on('error', () => undefined); // a session the server ends is the test's business
    await client.connect();
    return client;
  };

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT'); // fast shutdown: ends open sessions, no waiting on clients
      await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await until(
      `postgres on port ${String(port)}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`postgres exited: ${out}`);
        const c = await connect();
        await c.end();
        return true;
      },
      30_000,
      100,
    );
  } catch (err) {
    await stop();
    throw new Error(`postgres did not start: ${(err as Error).message}\n${out}`);
  }

  const query = async (sql: string, params: readonly unknown[] = []) => {
    const c = await connect();
    try {
      return (await c.query(sql, params as unknown[])).rows as Record<string, unknown>[];
    } finally {
      await c.end();
    }
  };

  return {
    host: address,
    port,
    dir,
    superuserUrl,
    output: () => out,
    query,
    session: connect,
    async createReadOnlyRole(name, password) {
      const role = pg.escapeIdentifier(name);
      await query(
        `CREATE ROLE ${role} LOGIN PASSWORD ${pg.escapeLiteral(password)} IN ROLE pg_monitor`,
      );
    },
    stop,
  };
}
