// The means the lab's faults use: hogs run detached, a volume or log filled, PostgreSQL
// changed as its superuser, a certificate reissued, nginx frozen, an alert posted.
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { APP_ROLE } from './db.js';
import { alive, type LabState } from './layout.js';
import { issueSiteCert } from './tls.js';
import { runUnit, unitPid } from './units.js';
import { usedBytes, VOLUME_BYTES } from './volume.js';

const HOG = join(import.meta.dirname, 'hog.mjs');

/** Starts a hog in its own session, so it outlives this command. */
export function spawnHog(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  nice = false,
): number {
  const cmd = nice ? 'nice' : process.execPath;
  const argv = nice ? ['-n', '19', process.execPath, HOG, ...args] : [HOG, ...args];
  const child = spawn(cmd, argv, { detached: true, stdio: 'ignore', env });
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start the ${args[0] ?? ''} hog`);
  return child.pid;
}

export async function killHog(pid: number | undefined): Promise<void> {
  if (pid === undefined || !alive(pid)) return;
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && alive(pid); i += 1) await sleep(100);
}

/** Waits (up to `ms`) until nothing listens on `address:port`; throws naming who still does. */
export async function portLetGo(address: string, port: number, ms = 10_000): Promise<void> {
  const listener = () =>
    execFileSync('ss', ['-Htlnp', 'src', `${address}:${String(port)}`], {
      encoding: 'utf8',
    }).trim();
  for (const deadline = Date.now() + ms; listener() !== ''; await sleep(100))
    if (Date.now() > deadline)
      throw new Error(`${address}:${String(port)} is still taken: ${listener()}`);
}

/** Room left on the app volume: without a mount, up to its nominal size (the textfile metric). */
function roomOnVolume(s: LabState): number {
  return s.app.volume_mounted ? Number.POSITIVE_INFINITY : VOLUME_BYTES - usedBytes(s.app.volume);
}

/** Writes `chunk` to `fd` until `room` bytes are written; answers true when the disk filled first. */
function writeUntilFull(fd: number, chunk: Buffer, room: number): boolean {
  for (let left = room; left > 0; left -= chunk.length) {
    try {
      writeSync(fd, chunk, 0, Math.min(chunk.length, left));
    } catch {
      return true; // ENOSPC
    }
  }
  return false;
}

export function fillVolume(s: LabState): void {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  // A file a chunk, until the volume is full: the cache holds many files, as a real one does.
  for (let i = 0, room = roomOnVolume(s); room > 0; i += 1, room -= chunk.length) {
    const fd = openSync(join(s.app.cache, `fill-${String(i).padStart(3, '0')}.bin`), 'w');
    try {
      if (writeUntilFull(fd, chunk, Math.min(chunk.length, room))) return;
    } finally {
      closeSync(fd);
    }
  }
}

export async function superuser(s: LabState, database = 'postgres'): Promise<pg.Client> {
  const c = new pg.Client({
    host: s.db.socket_dir,
    port: s.db.port,
    user: 'postgres',
    database,
  });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

export async function holdConnections(s: LabState): Promise<number> {
  const c = await superuser(s);
  let taken: number;
  let reserved: number;
  try {
    const r = await c.query<{ n: string; reserved: string }>(
      "SELECT count(*) AS n, current_setting('superuser_reserved_connections') AS reserved FROM pg_stat_activity WHERE backend_type = 'client backend'",
    );
    taken = Number(r.rows[0]?.n ?? 0) - 1; // not counting this session
    reserved = Number(r.rows[0]?.reserved ?? 3);
  } finally {
    await c.end();
  }
  // Leave one ordinary slot, so the service's read-only role can still look.
  const n = Math.max(1, s.db.max_connections - reserved - taken - 1);
  return spawnHog(['connections', String(n)], {
    ...process.env,
    LAB_PG_HOST: s.hosts.db.address,
    LAB_PG_PORT: String(s.db.port),
    LAB_PG_DATABASE: s.db.database,
    LAB_PG_USER: s.db.batch_role,
    LAB_PG_PASSWORD_FILE: s.db.batch_password_file,
  });
}

export async function terminateBatch(s: LabState): Promise<void> {
  const c = await superuser(s).catch(() => null);
  if (c === null) return;
  try {
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [
      s.db.batch_role,
    ]);
  } finally {
    await c.end();
  }
}

export async function reissueCert(s: LabState, days: number): Promise<void> {
  const dir = dirname(s.web.ca);
  issueSiteCert(
    { ca: s.web.ca, caKey: join(dir, 'ca.key'), cert: s.web.cert, key: s.web.key },
    s.hosts.web.address,
    days,
  );
  if (unitPid(s.web.unit) !== null) await runUnit(s.web.unit, 'reload');
}

export async function setAppPassword(s: LabState, password: string): Promise<void> {
  await alterAppRole(s, `PASSWORD ${pg.escapeLiteral(password)}`);
}

/** Grows the app's own log until the volume is full (the cache stays empty); answers its size before. */
export function fillLogs(s: LabState): number {
  const log = s.app.unit.log;
  const before = existsSync(log) ? statSync(log).size : 0;
  const line = Buffer.from(`${new Date().toISOString()} debug: ${'x'.repeat(1000)}\n`);
  const fd = openSync(log, 'a');
  try {
    writeUntilFull(fd, Buffer.concat(Array.from({ length: 1024 }, () => line)), roomOnVolume(s));
  } finally {
    closeSync(fd);
  }
  return before;
}

/** Tells Alertmanager an alert fired (as a rule would have), ending in a minute. */
export async function postAlert(
  s: LabState,
  alertname: string,
  service: string,
  extra: { labels?: Record<string, string>; summary?: string } = {},
): Promise<void> {
  const now = new Date();
  const res = await fetch(`${s.monitor.alertmanager}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      {
        labels: { alertname, service, severity: 'critical', posted: 'lab', ...extra.labels },
        annotations: { summary: extra.summary ?? `${alertname} (posted by the lab)` },
        startsAt: now.toISOString(),
        endsAt: new Date(now.getTime() + 60_000).toISOString(),
      },
    ]),
  });
  if (!res.ok) throw new Error(`Alertmanager refused ${alertname}: ${String(res.status)}`);
}

/** Runs statements as PostgreSQL's superuser, in `database`. */
export async function asSuperuser(
  s: LabState,
  statements: readonly string[],
  database = 'postgres',
): Promise<void> {
  const c = await superuser(s, database);
  try {
    for (const sql of statements) await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Changes the app's role, then ends its open sessions so the app must log in again. */
export async function alterAppRole(s: LabState, change: string): Promise<void> {
  await asSuperuser(s, [
    `ALTER ROLE ${APP_ROLE} ${change}`,
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ${pg.escapeLiteral(APP_ROLE)}`,
  ]);
}

/** A process's children, from /proc (nginx's workers under its master). */
function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in brackets and may hold spaces: the ppid follows its last ")".
      const stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) kids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return kids;
}

/** Freezes a unit's process and its children for `ms`, then lets them go on: a stall. */
export async function stall(pid: number, ms: number): Promise<void> {
  const all = [pid, ...childrenOf(pid)];
  for (const p of all) process.kill(p, 'SIGSTOP');
  try {
    await sleep(ms);
  } finally {
    for (const p of all) if (alive(p)) process.kill(p, 'SIGCONT');
  }
}
