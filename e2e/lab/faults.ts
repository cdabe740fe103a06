// The named faults (fault-catalogue.ts): how each is injected into the running lab and how
// `heal` undoes it. Active faults are kept in <lab>/faults.json, so inject and heal work from
// any terminal while the lab runs.
import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  applyDeploy,
  commitConfig,
  headConfig,
  readLiveConfig,
  writeLiveConfig,
} from './deploy.js';
import type { AppConfig } from './deploy.js';
import { UNKNOWN_SERVICE, type FaultName } from './fault-catalogue.js';
import {
  alterAppRole,
  asSuperuser,
  fillLogs,
  fillVolume,
  holdConnections,
  killHog,
  portLetGo,
  postAlert,
  reissueCert,
  setAppPassword,
  spawnHog,
  stall,
  terminateBatch,
} from './fault-means.js';
import { alive, type LabState } from './layout.js';
import { runUnit, startUnit, stopUnit, unitPid } from './units.js';

export { FAULT_NAMES, FAULTS, faultInfo, isFaultName, UNKNOWN_SERVICE } from './fault-catalogue.js';
export type { FaultInfo, FaultName } from './fault-catalogue.js';
export { postAlert } from './fault-means.js';

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

/** Commits a change to the deployed config and applies it; answers what heal needs to undo it. */
function deployChange(
  s: LabState,
  change: (good: AppConfig) => AppConfig,
  message: string,
): { good_config: AppConfig; commit: string } {
  const good = headConfig(s.deploy.repo);
  const commit = commitConfig(s.deploy.repo, change(good), message);
  applyDeploy(s.deploy.repo, s.app.config);
  return { good_config: good, commit };
}

/** A new page title: a harmless deploy, for the red herrings. */
const harmlessDeploy = (s: LabState) =>
  deployChange(s, (good) => ({ ...good, title: `${good.title} ` }), 'retitle the shop');

/** Commits the config a fault started from back (when the repo moved) and applies it. */
function deployBack(s: LabState, good: AppConfig | undefined, message: string): void {
  if (good !== undefined && JSON.stringify(headConfig(s.deploy.repo)) !== JSON.stringify(good))
    commitConfig(s.deploy.repo, good, message);
  applyDeploy(s.deploy.repo, s.app.config);
}

/** Sends a signal to the app's process: its bug switches (app/server.mjs). */
function signalApp(s: LabState, signal: NodeJS.Signals): void {
  const pid = unitPid(s.app.unit);
  if (pid !== null) process.kill(pid, signal);
}

/** Waits (up to `ms`) for a pid to be gone. */
async function gone(pid: number | null, ms: number): Promise<void> {
  for (let t = 0; pid !== null && t < ms && alive(pid); t += 100) await sleep(100);
}

async function injectOne(s: LabState, name: FaultName): Promise<Omit<Active, 'at'>> {
  switch (name) {
    case 'service-down':
      await stopUnit(s.web.unit);
      return {};
    case 'app-down':
      signalApp(s, 'SIGKILL');
      return {};
    case 'db-down':
      await stopUnit(s.db.unit);
      return {};
    case 'disk-full':
      fillVolume(s);
      return {};
    case 'pool-exhausted':
      return { pid: await holdConnections(s) };
    case 'bad-deploy':
      return deployChange(
        s,
        (good) => ({ ...good, database: { ...good.database, name: 'shop_v2' } }),
        'shop: read pages from the shop_v2 database',
      );
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
      const deployed = deployChange(
        s,
        (good) => ({ ...good, pool_size: good.pool_size + 1 }),
        'shop: one more pooled connection',
      );
      // The app picks the config up and keeps serving; then it dies for another reason.
      await sleep(3000);
      signalApp(s, 'SIGKILL');
      return deployed;
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
      const pid = spawnHog(['listen', `${s.hosts.app.address}:${String(s.app.port)}`]);
      await sleep(500);
      // The app's start dies on the taken port; its unit script may say so.
      await startUnit(s.app.unit).catch(() => undefined);
      // Its start script sees the listener and returns at once: the fault is in place when
      // the app has died on the taken port (heal would otherwise find it still exiting).
      await gone(unitPid(s.app.unit), 10_000);
      return { pid };
    }
    case 'red-herring-config': {
      const text = readFileSync(s.web.conf, 'utf8');
      writeFileSync(s.web.conf, `# reviewed by the lab ${new Date().toISOString()}\n${text}`);
      await runUnit(s.web.unit, 'reload');
      await sleep(3000);
      signalApp(s, 'SIGKILL');
      return { text };
    }
    case 'blip': {
      // Frozen, not stopped: a stop and start of nginx outlasts the one-second scrape, and
      // its start can fail while the old master lets go of the port.
      const pid = unitPid(s.web.unit);
      if (pid === null) throw new Error('blip: nginx is not running');
      await stall(pid, 1000);
      await postAlert(s, 'LabNginxDown', 'nginx');
      return {};
    }
    case 'noise':
      await postAlert(s, 'LabDiskFull', 'app', { labels: { noise: 'yes' }, summary: 'fired on noise by the lab' }); // prettier-ignore
      return {};
    case 'noise-db':
      await postAlert(s, 'LabPostgresDown', 'postgresql', { labels: { noise: 'yes' }, summary: 'fired on noise by the lab' }); // prettier-ignore
      return {};
    case 'unknown-service':
      await postAlert(s, 'LabBillingDown', UNKNOWN_SERVICE, { summary: `${UNKNOWN_SERVICE} does not answer` }); // prettier-ignore
      return {};
    case 'red-herring': {
      const deployed = harmlessDeploy(s);
      await stopUnit(s.web.unit);
      return deployed;
    }
    case 'deploy-then-db-down': {
      const deployed = harmlessDeploy(s);
      await sleep(3000); // the app picks it up and keeps serving; then the database stops
      await stopUnit(s.db.unit);
      return deployed;
    }
    case 'two-at-once': {
      const pid = spawnHog(['cpu', String(availableParallelism())], process.env, true);
      await stopUnit(s.web.unit);
      return { pid };
    }
    case 'two-at-once-db': {
      const pid = spawnHog(['memory', String(4 * 1024 * 1024 * 1024)]);
      await sleep(3000);
      await stopUnit(s.db.unit);
      return { pid };
    }
    case 'db-killed': {
      const pid = unitPid(s.db.unit);
      if (pid === null) throw new Error('db-killed: PostgreSQL is not running');
      process.kill(pid, 'SIGKILL');
      await gone(pid, 5000);
      return {};
    }
    case 'app-crashed':
    case 'app-oom': {
      const pid = unitPid(s.app.unit);
      signalApp(s, name === 'app-crashed' ? 'SIGUSR2' : 'SIGTTIN');
      await gone(pid, 30_000);
      return {};
    }
    case 'cert-expired':
      await reissueCert(s, -1);
      return {};
    case 'db-role-nologin':
      await alterAppRole(s, 'NOLOGIN');
      return {};
    case 'role-connection-limit':
      await alterAppRole(s, 'CONNECTION LIMIT 0');
      return {};
    case 'table-renamed':
      await asSuperuser(s, ['ALTER TABLE pages RENAME TO pages_old'], s.db.database);
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
    case 'bad-deploy':
      deployBack(s, active?.good_config, 'revert "shop: read pages from the shop_v2 database"');
      return;
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
    case 'harmless-deploy-crash':
      deployBack(s, active?.good_config, 'shop: back to the earlier pool size');
      await startUnit(s.app.unit);
      return;
    case 'db-auth-refused':
      await setAppPassword(s, readFileSync(s.db.app_password_file, 'utf8').trim());
      return;
    case 'table-lock':
      await killHog(active?.pid);
      return;
    case 'log-disk-full':
      // Back to the size it had: what the app wrote meanwhile is filler too.
      truncateSync(s.app.unit.log, active?.log_size ?? 0);
      return;
    case 'blip':
    case 'noise':
    case 'noise-db':
    case 'unknown-service':
      return; // nothing was changed
    case 'red-herring':
      await startUnit(s.web.unit);
      deployBack(s, active?.good_config, 'shop: the earlier title');
      return;
    case 'deploy-then-db-down':
      await startUnit(s.db.unit);
      deployBack(s, active?.good_config, 'shop: the earlier title');
      return;
    case 'two-at-once':
      await startUnit(s.web.unit);
      await killHog(active?.pid);
      return;
    case 'two-at-once-db':
      await startUnit(s.db.unit);
      await killHog(active?.pid);
      return;
    case 'db-killed':
      await startUnit(s.db.unit);
      return;
    case 'app-crashed':
    case 'app-oom':
      await startUnit(s.app.unit);
      return;
    case 'cert-expired':
      await reissueCert(s, 365);
      return;
    case 'db-role-nologin':
      await alterAppRole(s, 'LOGIN');
      return;
    case 'role-connection-limit':
      await alterAppRole(s, 'CONNECTION LIMIT -1');
      return;
    case 'table-renamed':
      await asSuperuser(s, ['ALTER TABLE IF EXISTS pages_old RENAME TO pages'], s.db.database);
      return;
    case 'app-config-edited':
    case 'db-host-unresolvable':
      // The repository holds what was deployed: put it back on the host.
      applyDeploy(s.deploy.repo, s.app.config);
      return;
    case 'app-hung':
      if (active?.pid !== undefined && alive(active.pid)) process.kill(active.pid, 'SIGCONT');
      return;
    case 'port-in-use':
      await killHog(active?.pid);
      await portLetGo(s.hosts.app.address, s.app.port);
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
