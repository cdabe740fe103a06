// The named faults: how each is injected into the running lab, how `heal` undoes it, which
// alerts it fires and its ground truth (cause, service, expected fix; the table in
// ../shared/design/investigation.md "The lab"). Active faults are kept in <lab>/faults.json,
// so inject and heal work from any terminal while the lab runs.
import { spawn } from 'node:child_process';
import {
  existsSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { APP_ROLE, BATCH_ROLE } from './db.js';
import {
  applyDeploy,
  commitConfig,
  headConfig,
  readLiveConfig,
  writeLiveConfig,
  type AppConfig,
} from './deploy.js';
import { alive, type LabState } from './layout.js';
import { issueSiteCert } from './tls.js';
import { runUnit, startUnit, stopUnit, unitPid } from './units.js';
import { usedBytes, VOLUME_BYTES } from './volume.js';

export const FAULT_NAMES = [
  'service-down',
  'app-down',
  'db-down',
  'disk-full',
  'pool-exhausted',
  'bad-deploy',
  'memory-pressure',
  'cpu-hog',
  'cert-expiry',
  'slow-upstream',
  'app-stopped',
  'harmless-deploy-crash',
  'db-auth-refused',
  'table-lock',
  'log-disk-full',
  'config-edited',
  'app-config-edited',
  'port-in-use',
  'red-herring-config',
  'db-host-unresolvable',
  'app-hung',
  'blip',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export interface FaultInfo {
  readonly name: FaultName;
  readonly title: string;
  readonly how: string;
  /** The alerts it fires (service in brackets where it is not the fault's own). */
  readonly alerts: readonly string[];
  readonly cause: string;
  readonly service: string;
  readonly fix: string;
  /** no pack knows the cause: the right answer is abstain or ask_human, never a proof */
  readonly uncovered?: true;
}

export const FAULTS: readonly FaultInfo[] = [
  { name: 'service-down', title: 'web server stopped', how: 'stop nginx (its unit stop script)', alerts: ['LabNginxDown', 'LabSiteDown'], cause: 'service_down(nginx)', service: 'nginx', fix: 'restart unit nginx' },
  { name: 'app-down', title: 'app process down', how: 'kill -9 the app (its pidfile stays: the gate reports it failed)', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'service_down(app); nginx errors linked', service: 'app', fix: 'restart unit app' },
  { name: 'db-down', title: 'database down', how: 'stop PostgreSQL (pg_ctl stop -m fast)', alerts: ['LabPostgresDown', 'LabAppUnhealthy (app)', 'LabAppErrors (app)', 'LabSiteDown (nginx)'], cause: 'service_down(postgresql); app errors linked', service: 'postgresql', fix: 'restart unit postgresql' },
  { name: 'disk-full', title: 'disk full', how: 'fill the app volume (16 MiB tmpfs) with files in its cache folder', alerts: ['LabDiskFull'], cause: 'disk_full', service: 'app', fix: 'clear_cache app-cache' },
  { name: 'pool-exhausted', title: 'connection pool exhausted', how: `a detached process holds idle sessions as role ${BATCH_ROLE} up to max_connections (one slot left)`, alerts: ['LabPgConnectionsExhausted'], cause: 'pg_connections_exhausted', service: 'postgresql', fix: `terminate idle sessions of role ${BATCH_ROLE}` },
  { name: 'bad-deploy', title: 'bad config deploy', how: 'commit a config naming a database that does not exist to the deploy repo and apply it', alerts: ['LabAppUnhealthy', 'LabAppErrors', 'LabSiteDown (nginx)'], cause: 'bad_deploy (config.json: database.name shop → shop_v2)', service: 'app', fix: 'revert the deploy (restore config.json)' },
  { name: 'memory-pressure', title: 'memory pressure', how: 'a detached process holds 4 GiB of touched memory', alerts: ['LabMemoryPressure'], cause: 'memory_pressure', service: 'app', fix: 'ask_human (killing is high risk)' },
  { name: 'cpu-hog', title: 'CPU hog', how: 'a detached busy loop per CPU (nice 19)', alerts: ['LabCpuSaturation'], cause: 'cpu_saturation', service: 'app', fix: 'ask_human' },
  { name: 'cert-expiry', title: 'certificate near expiry', how: 'issue a 2-day certificate for the site and reload nginx', alerts: ['LabCertExpiring'], cause: 'cert_expiring', service: 'nginx', fix: 'ask_human (renewal is external)' },
  { name: 'slow-upstream', title: 'slow upstream', how: 'set slow_ms 2000 in the app host\'s live config (no deploy: the repo is unchanged)', alerts: ['LabSlowUpstream'], cause: 'upstream_latency', service: 'nginx', fix: 'ask_human' },
  { name: 'app-stopped', title: 'app stopped cleanly', how: 'stop the app through its unit (a clean stop: the gate reports it stopped, not failed)', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'service_down(app)', service: 'app', fix: 'restart unit app' },
  { name: 'harmless-deploy-crash', title: 'a harmless deploy, then an unrelated crash', how: 'deploy a larger pool size (harmless), then kill -9 the app: the deploy must never be blamed', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'service_down(app), never bad_deploy', service: 'app', fix: 'restart unit app' },
  { name: 'db-auth-refused', title: 'the database refuses the app\'s role', how: 'change the app role\'s password in PostgreSQL and end its sessions: the app cannot log in', alerts: ['LabAppUnhealthy', 'LabAppErrors', 'LabSiteDown (nginx)'], cause: 'dependency_auth_refused(app): the app\'s log says authentication failed while PostgreSQL is up', service: 'app', fix: 'ask_human (credentials are a person\'s)' },
  { name: 'table-lock', title: 'a lock held on the table the app reads', how: 'a detached session holds ACCESS EXCLUSIVE on the pages table: the app\'s page queries wait', alerts: ['LabSiteDown', 'LabSlowUpstream'], cause: 'none a pack knows (lock wait)', service: 'nginx', fix: 'ask_human', uncovered: true },
  { name: 'log-disk-full', title: 'a log grows until the disk is full', how: 'grow the app\'s own log (log/app.log) until its volume is full (the cache stays empty)', alerts: ['LabDiskFull'], cause: 'disk_full_by_logs(app): the logs fill the volume, so clearing the (empty) cache would not help', service: 'app', fix: 'ask_human (deleting logs destroys evidence)' },
  { name: 'config-edited', title: 'a configuration file edited by hand', how: 'edit nginx.conf on the web host by hand (the upstream port, off by one) and reload nginx: the site answers 502', alerts: ['LabSiteDown'], cause: 'config_changed(nginx)', service: 'nginx', fix: 'restore the previous nginx.conf (a restore: advised, or two approvers)' },
  { name: 'app-config-edited', title: 'the app\'s live config edited by hand', how: 'edit the app host\'s live config.json by hand (the database port, off by one; no deploy): the app\'s connections are refused', alerts: ['LabAppUnhealthy', 'LabAppErrors', 'LabSiteDown (nginx)'], cause: 'config_changed(app), never upstream_refused: the refusal is the edit\'s', service: 'app', fix: 'restore the previous config.json (a restore)' },
  { name: 'port-in-use', title: 'another process holds the app\'s port', how: 'stop the app, listen on its address with another process, start the app: it dies with EADDRINUSE', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'port_in_use(app)', service: 'app', fix: 'ask_human (which process holds the port is a person\'s call)' },
  { name: 'red-herring-config', title: 'a harmless config edit, then an unrelated crash', how: 'add a comment to nginx.conf and reload it, then kill -9 the app: the edit must never be blamed', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'service_down(app), never config_changed', service: 'app', fix: 'restart unit app' },
  { name: 'db-host-unresolvable', title: 'the app pointed at a host name that does not resolve', how: 'edit the app host\'s live config.json by hand: the database host becomes db.lab.invalid (no deploy); the app cannot resolve it', alerts: ['LabAppUnhealthy', 'LabAppErrors', 'LabSiteDown (nginx)'], cause: 'config_changed(app), never dns_failure: the failed lookups are the edit\'s', service: 'app', fix: 'restore the previous config.json (a restore)' },
  { name: 'app-hung', title: 'the app hangs', how: 'SIGSTOP the app: its process is there, it answers nothing and logs nothing', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'none a pack knows (a hung process): abstain or ask', service: 'app', fix: 'ask_human', uncovered: true },
  { name: 'blip', title: 'a one-second blip', how: 'stop nginx and start it again a second later, and tell Alertmanager nginx was down', alerts: ['LabNginxDown'], cause: 'none present (it ended by itself)', service: 'nginx', fix: 'none', uncovered: true },
]; // prettier-ignore

export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name);
}

export function faultInfo(name: FaultName): FaultInfo {
  const info = FAULTS.find((f) => f.name === name);
  if (info === undefined) throw new Error(`no fault ${name}`);
  return info;
}

/** What an active fault left behind for heal: a hog's pid, the config before a deploy. */
interface Active {
  readonly at: string;
  readonly pid?: number;
  readonly good_config?: AppConfig;
  readonly commit?: string;
  /** a file's content before the fault edited it */
  readonly text?: string;
  /** the app log's size before it was filled */
  readonly log_size?: number;
}
type ActiveFaults = Partial<Record<FaultName, Active>>;

const faultsFile = (s: LabState) => join(s.dir, 'faults.json');

export function activeFaults(s: LabState): ActiveFaults {
  const file = faultsFile(s);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ActiveFaults) : {};
}

function saveFaults(s: LabState, faults: ActiveFaults): void {
  writeFileSync(faultsFile(s), `${JSON.stringify(faults, null, 2)}\n`);
}

const HOG = join(import.meta.dirname, 'hog.mjs');

/** Starts a hog in its own session, so it outlives this command. */
function spawnHog(args: string[], env: NodeJS.ProcessEnv = process.env, nice = false): number {
  const cmd = nice ? 'nice' : process.execPath;
  const argv = nice ? ['-n', '19', process.execPath, HOG, ...args] : [HOG, ...args];
  const child = spawn(cmd, argv, { detached: true, stdio: 'ignore', env });
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start the ${args[0] ?? ''} hog`);
  return child.pid;
}

async function killHog(pid: number | undefined): Promise<void> {
  if (pid === undefined || !alive(pid)) return;
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && alive(pid); i += 1) await sleep(100);
}

function fillVolume(s: LabState): void {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  // Without a mount, stop at the volume's nominal size (the textfile metric measures it).
  let room = s.app.volume_mounted
    ? Number.POSITIVE_INFINITY
    : VOLUME_BYTES - usedBytes(s.app.volume);
  for (let i = 0; room > 0; i += 1) {
    const fd = openSync(join(s.app.cache, `fill-${String(i).padStart(3, '0')}.bin`), 'w');
    try {
      writeSync(fd, chunk, 0, Math.min(chunk.length, room));
    } catch {
      break; // ENOSPC: full
    } finally {
      closeSync(fd);
    }
    room -= chunk.length;
  }
}

async function superuser(s: LabState): Promise<pg.Client> {
  const c = new pg.Client({
    host: s.db.socket_dir,
    port: s.db.port,
    user: 'postgres',
    database: 'postgres',
  });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

async function holdConnections(s: LabState): Promise<number> {
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

async function terminateBatch(s: LabState): Promise<void> {
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

async function reissueCert(s: LabState, days: number): Promise<void> {
  const dir = dirname(s.web.ca);
  issueSiteCert(
    { ca: s.web.ca, caKey: join(dir, 'ca.key'), cert: s.web.cert, key: s.web.key },
    s.hosts.web.address,
    days,
  );
  if (unitPid(s.web.unit) !== null) await runUnit(s.web.unit, 'reload');
}

/** The app role's password as the lab set it (beside the batch role's). */
const appPasswordFile = (s: LabState) => join(dirname(s.db.batch_password_file), 'app.password');

async function setAppPassword(s: LabState, password: string): Promise<void> {
  const c = await superuser(s);
  try {
    await c.query(`ALTER ROLE ${APP_ROLE} PASSWORD ${pg.escapeLiteral(password)}`);
    // Its open sessions would go on working: end them, so the app must log in again.
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [
      APP_ROLE,
    ]);
  } finally {
    await c.end();
  }
}

/** The app's own log: a log that grows until the volume is full (the cache stays empty). */
const appLog = (s: LabState) => join(s.app.volume, 'log', 'app.log');

/** Grows the app's log until the volume is full; answers its size before. */
function fillLogs(s: LabState): number {
  const log = appLog(s);
  const before = existsSync(log) ? statSync(log).size : 0;
  const line = Buffer.from(`${new Date().toISOString()} debug: ${'x'.repeat(1000)}\n`);
  const chunk = Buffer.concat(Array.from({ length: 1024 }, () => line));
  let room = s.app.volume_mounted
    ? Number.POSITIVE_INFINITY
    : VOLUME_BYTES - usedBytes(s.app.volume);
  const fd = openSync(log, 'a');
  try {
    while (room > 0) {
      try {
        writeSync(fd, chunk, 0, Math.min(chunk.length, room));
      } catch {
        break; // ENOSPC: full
      }
      room -= chunk.length;
    }
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
        labels: { alertname, service, severity: 'critical', ...extra.labels },
        annotations: { summary: extra.summary ?? `${alertname} (posted by the lab)` },
        startsAt: now.toISOString(),
        endsAt: new Date(now.getTime() + 60_000).toISOString(),
      },
    ]),
  });
  if (!res.ok) throw new Error(`Alertmanager refused ${alertname}: ${String(res.status)}`);
}

async function injectOne(s: LabState, name: FaultName): Promise<Omit<Active, 'at'>> {
  switch (name) {
    case 'service-down':
      await stopUnit(s.web.unit);
      return {};
    case 'app-down': {
      const pid = unitPid(s.app.unit);
      if (pid !== null) process.kill(pid, 'SIGKILL');
      return {};
    }
    case 'db-down':
      await stopUnit(s.db.unit);
      return {};
    case 'disk-full':
      fillVolume(s);
      return {};
    case 'pool-exhausted':
      return { pid: await holdConnections(s) };
    case 'bad-deploy': {
      const good = headConfig(s.deploy.repo);
      const commit = commitConfig(
        s.deploy.repo,
        { ...good, database: { ...good.database, name: 'shop_v2' } },
        'shop: read pages from the shop_v2 database',
      );
      applyDeploy(s.deploy.repo, s.app.config);
      return { good_config: good, commit };
    }
    case 'memory-pressure':
      return { pid: spawnHog(['memory', String(4 * 1024 * 1024 * 1024)]) };
    case 'cpu-hog':
      return { pid: spawnHog(['cpu', String(availableParallelism())], process.env, true) };
    case 'cert-expiry':
      await reissueCert(s, 2);
      return {};
    case 'slow-upstream':
      writeLiveConfig(s.app.config, { ...readLiveConfig(s.app.config), slow_ms: 2000 });
      return {};
    case 'app-stopped':
      await stopUnit(s.app.unit);
      return {};
    case 'harmless-deploy-crash': {
      const good = headConfig(s.deploy.repo);
      const commit = commitConfig(
        s.deploy.repo,
        { ...good, pool_size: good.pool_size + 1 },
        'shop: one more pooled connection',
      );
      applyDeploy(s.deploy.repo, s.app.config);
      // The app picks the config up and keeps serving; then it dies for another reason.
      await sleep(3000);
      const pid = unitPid(s.app.unit);
      if (pid !== null) process.kill(pid, 'SIGKILL');
      return { good_config: good, commit };
    }
    case 'db-auth-refused':
      await setAppPassword(s, `refused-${String(Date.now())}`);
      return {};
    case 'table-lock':
      return {
        pid: spawnHog(['lock', 'pages'], {
          ...process.env,
          LAB_PG_HOST: s.db.socket_dir,
          LAB_PG_PORT: String(s.db.port),
          LAB_PG_DATABASE: s.db.database,
          LAB_PG_USER: 'postgres',
        }),
      };
    case 'log-disk-full':
      return { log_size: fillLogs(s) };
    case 'config-edited': {
      const text = readFileSync(s.web.conf, 'utf8');
      const edited = text.replace(
        /server ([0-9.]+):(\d+) /,
        (_m, host: string, port: string) => `server ${host}:${String(Number(port) + 1)} `,
      );
      if (edited === text) throw new Error(`no upstream server line in ${s.web.conf}`);
      writeFileSync(s.web.conf, edited);
      await runUnit(s.web.unit, 'reload');
      return { text };
    }
    case 'app-config-edited': {
      const live = readLiveConfig(s.app.config);
      writeLiveConfig(s.app.config, {
        ...live,
        database: { ...live.database, port: live.database.port + 1 },
      });
      return {};
    }
    case 'db-host-unresolvable': {
      const live = readLiveConfig(s.app.config);
      writeLiveConfig(s.app.config, {
        ...live,
        database: { ...live.database, host: 'db.lab.invalid' },
      });
      return {};
    }
    case 'app-hung': {
      const pid = unitPid(s.app.unit);
      if (pid !== null) process.kill(pid, 'SIGSTOP');
      return pid === null ? {} : { pid };
    }
    case 'port-in-use': {
      await stopUnit(s.app.unit);
      const [host = '', port = ''] = [s.hosts.app.address, String(s.app.port)];
      const pid = spawnHog(['listen', `${host}:${port}`]);
      await sleep(500);
      // The app's start dies on the taken port; its unit script may say so.
      await startUnit(s.app.unit).catch(() => undefined);
      return { pid };
    }
    case 'red-herring-config': {
      const text = readFileSync(s.web.conf, 'utf8');
      writeFileSync(s.web.conf, `# reviewed by the lab ${new Date().toISOString()}\n${text}`);
      await runUnit(s.web.unit, 'reload');
      await sleep(3000);
      const pid = unitPid(s.app.unit);
      if (pid !== null) process.kill(pid, 'SIGKILL');
      return { text };
    }
    case 'blip':
      await stopUnit(s.web.unit);
      await sleep(1000);
      // Back before anyone looks: the blip is over when the alert arrives. A start right
      // after a stop can fail while the old master lets go of its port: try again.
      for (let i = 0; i < 20 && unitPid(s.web.unit) === null; i += 1) {
        await startUnit(s.web.unit).catch(() => undefined);
        if (unitPid(s.web.unit) === null) await sleep(500);
      }
      if (unitPid(s.web.unit) === null) throw new Error('blip: nginx did not start again');
      await postAlert(s, 'LabNginxDown', 'nginx');
      return {};
  }
}

async function healOne(s: LabState, name: FaultName, active: Active | undefined): Promise<void> {
  switch (name) {
    case 'service-down':
      await startUnit(s.web.unit);
      return;
    case 'app-down':
      await startUnit(s.app.unit);
      return;
    case 'db-down':
      await startUnit(s.db.unit);
      return;
    case 'disk-full':
      for (const f of readdirSync(s.app.cache))
        if (f.startsWith('fill-')) rmSync(join(s.app.cache, f), { force: true });
      return;
    case 'pool-exhausted':
      await killHog(active?.pid);
      await terminateBatch(s);
      return;
    case 'bad-deploy': {
      const good = active?.good_config;
      if (good !== undefined && JSON.stringify(headConfig(s.deploy.repo)) !== JSON.stringify(good))
        commitConfig(s.deploy.repo, good, 'revert "shop: read pages from the shop_v2 database"');
      applyDeploy(s.deploy.repo, s.app.config);
      return;
    }
    case 'memory-pressure':
    case 'cpu-hog':
      await killHog(active?.pid);
      return;
    case 'cert-expiry':
      await reissueCert(s, 365);
      return;
    case 'slow-upstream':
      writeLiveConfig(s.app.config, {
        ...readLiveConfig(s.app.config),
        slow_ms: headConfig(s.deploy.repo).slow_ms,
      });
      return;
    case 'app-stopped':
      await startUnit(s.app.unit);
      return;
    case 'harmless-deploy-crash': {
      const good = active?.good_config;
      if (good !== undefined && JSON.stringify(headConfig(s.deploy.repo)) !== JSON.stringify(good))
        commitConfig(s.deploy.repo, good, 'shop: back to the earlier pool size');
      applyDeploy(s.deploy.repo, s.app.config);
      if (unitPid(s.app.unit) === null) await startUnit(s.app.unit);
      return;
    }
    case 'db-auth-refused':
      await setAppPassword(s, readFileSync(appPasswordFile(s), 'utf8').trim());
      return;
    case 'table-lock':
      await killHog(active?.pid);
      return;
    case 'log-disk-full':
      // Back to the size it had: what the app wrote meanwhile is filler too.
      truncateSync(appLog(s), active?.log_size ?? 0);
      return;
    case 'blip':
      if (unitPid(s.web.unit) === null) await startUnit(s.web.unit);
      return;
    case 'app-config-edited':
      // The repository holds what was deployed: put it back on the host.
      applyDeploy(s.deploy.repo, s.app.config);
      return;
    case 'db-host-unresolvable':
      applyDeploy(s.deploy.repo, s.app.config);
      return;
    case 'app-hung':
      if (active?.pid !== undefined && alive(active.pid)) process.kill(active.pid, 'SIGCONT');
      return;
    case 'port-in-use':
      await killHog(active?.pid);
      await startUnit(s.app.unit);
      return;
    case 'red-herring-config':
      if (active?.text !== undefined) writeFileSync(s.web.conf, active.text);
      await runUnit(s.web.unit, 'reload');
      await startUnit(s.app.unit);
      return;
    case 'config-edited':
      // The service may have restored it already; writing the same text again is harmless.
      if (active?.text !== undefined) writeFileSync(s.web.conf, active.text);
      if (unitPid(s.web.unit) === null) await startUnit(s.web.unit);
      else await runUnit(s.web.unit, 'reload');
      return;
  }
}

export async function inject(s: LabState, name: FaultName): Promise<void> {
  const faults = activeFaults(s);
  if (faults[name] !== undefined) throw new Error(`${name} is injected already (heal it first)`);
  const left = await injectOne(s, name);
  saveFaults(s, { ...activeFaults(s), [name]: { at: new Date().toISOString(), ...left } });
}

/** Heals one fault, or every active one (newest first) when no name is given. */
export async function heal(s: LabState, name?: FaultName): Promise<FaultName[]> {
  const faults = activeFaults(s);
  const names =
    name !== undefined
      ? [name]
      : (Object.keys(faults) as FaultName[]).sort((a, b) =>
          (faults[b]?.at ?? '').localeCompare(faults[a]?.at ?? ''),
        );
  for (const n of names) {
    await healOne(s, n, faults[n]);
    const now = activeFaults(s);
    delete now[n];
    saveFaults(s, now);
  }
  return names;
}
