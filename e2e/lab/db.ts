// The db host: PostgreSQL (started by ./postgres.ts), then set up for the lab: the app's
// database and role, the service's read-only role, the batch role the pool-exhaustion fault
// connects as, and its settings written with ALTER SYSTEM so that pg_ctl (the unit's start
// script, which the gate runs to restart it) brings it back on the same port and address.
// The gate ends the batch role's idle sessions with psql over the socket (psqlCommand).
import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { UnitFiles } from './layout.js';
import { PG_BIN, type LabPostgres } from './postgres.js';
import { writeUnit } from './units.js';

export const DATABASE = 'shop';
export const APP_ROLE = 'app';
export const READER_ROLE = 'svc_reader';
export const BATCH_ROLE = 'lab_batch';

export interface DbPasswords {
  readonly app: string;
  readonly reader: string;
  readonly batch: string;
}

function postgresIds(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function setUpDatabase(
  pgl: LabPostgres,
  maxConnections: number,
  passwords: DbPasswords,
): Promise<void> {
  const lit = pg.escapeLiteral;
  const settings: Record<string, string> = {
    port: String(pgl.port),
    listen_addresses: pgl.host,
    unix_socket_directories: pgl.dir,
    max_connections: String(maxConnections),
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    shared_buffers: '16MB',
    log_min_messages: 'warning',
  };
  // ALTER SYSTEM cannot run inside a transaction block: one statement at a time.
  for (const [k, v] of Object.entries(settings))
    await pgl.query(`ALTER SYSTEM SET ${k} = ${lit(v)}`);
  // Clients on the lab's other loopback addresses connect from 127.0.0.0/8, not only .1.
  appendFileSync(join(pgl.dir, 'data', 'pg_hba.conf'), 'host all all 127.0.0.0/8 scram-sha-256\n');
  await pgl.query('SELECT pg_reload_conf()');
  await pgl.query(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD ${lit(passwords.app)}`);
  await pgl.query(
    `CREATE ROLE ${BATCH_ROLE} LOGIN PASSWORD ${lit(passwords.batch)} CONNECTION LIMIT -1`,
  );
  await pgl.query(`CREATE DATABASE ${DATABASE} OWNER ${APP_ROLE}`);
  await pgl.createReadOnlyRole(READER_ROLE, passwords.reader);
  const c = await pgl.session(DATABASE);
  try {
    await c.query(`SET ROLE ${APP_ROLE}`);
    await c.query('CREATE TABLE pages (slug text PRIMARY KEY, title text NOT NULL, body text)');
    await c.query(
      `INSERT INTO pages VALUES ('home', 'Lab shop', 'Served by the app from PostgreSQL.')`,
    );
    await c.query(`GRANT SELECT ON pages TO ${READER_ROLE}`);
  } finally {
    await c.end();
  }
}

/**
 * How the db host's gate reaches PostgreSQL for `terminate_idle` (its `pg.psql=`): psql over
 * the unix socket as the superuser `postgres` (runuser when the lab runs as root, as it
 * does for the unit's pg_ctl), on the app's database.
 */
export function psqlCommand(pgl: Pick<LabPostgres, 'dir' | 'port'>): string {
  const as = postgresIds() !== null ? 'runuser -u postgres -- ' : '';
  return `${as}${join(PG_BIN, 'psql')} -h ${pgl.dir} -p ${String(pgl.port)} -d ${DATABASE}`;
}

/** The postgresql unit: pg_ctl start/stop on the same data folder. */
export function preparePostgresUnit(pgl: LabPostgres, binDir: string): UnitFiles {
  const data = join(pgl.dir, 'data');
  const log = join(pgl.dir, 'postgresql.log');
  writeFileSync(log, '', { flag: 'a' });
  const ids = postgresIds();
  if (ids !== null) chownSync(log, ids.uid, ids.gid);
  const as = ids !== null ? 'runuser -u postgres -- ' : '';
  const ctl = `${as}${join(PG_BIN, 'pg_ctl')} -D ${data}`;
  return writeUnit(
    binDir,
    'postgresql',
    { pidfile: join(data, 'postmaster.pid'), log },
    {
      start: `cd /\nexec ${ctl} -l ${log} -w -t 30 -s start`,
      stop: `cd /\nexec ${ctl} -m fast -w -t 30 -s stop`,
      reload: `cd /\nexec ${ctl} -s reload`,
    },
  );
}
