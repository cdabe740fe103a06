// The lab's faults and their ground truth (cause, service, expected fix; the table in
// ../shared/design/investigation.md "The lab", extended with our own). The first ten are the
// design's; the rest are ours: faults no pack was written for, red herrings, negative
// controls (noise, a one-second stall), faults no pack covers and two faults at once.
// How each is injected and healed is in faults.ts.
import { APP_ROLE, BATCH_ROLE } from './db.js';

/** The service of the unknown-service fault: no host of the lab runs it. */
export const UNKNOWN_SERVICE = 'billing';

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
  'noise',
  'noise-db',
  'unknown-service',
  'red-herring',
  'deploy-then-db-down',
  'two-at-once',
  'two-at-once-db',
  'db-killed',
  'app-crashed',
  'app-oom',
  'cert-expired',
  'db-role-nologin',
  'role-connection-limit',
  'table-renamed',
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
  { name: 'blip', title: 'a one-second stall', how: 'freeze nginx (SIGSTOP its master and workers) for one second, then tell Alertmanager nginx was down', alerts: ['LabNginxDown'], cause: 'none present (it ended by itself)', service: 'nginx', fix: 'none', uncovered: true },
  { name: 'noise', title: 'a rule fired on noise', how: 'tell Alertmanager the app\'s disk is full while it is not', alerts: ['LabDiskFull'], cause: 'none (the disk is fine)', service: 'app', fix: 'none', uncovered: true },
  { name: 'noise-db', title: 'a database alert on noise', how: 'tell Alertmanager PostgreSQL is down while it answers', alerts: ['LabPostgresDown'], cause: 'none (PostgreSQL is up)', service: 'postgresql', fix: 'none', uncovered: true },
  { name: 'unknown-service', title: 'an alert from a service the estate does not know', how: `tell Alertmanager a service named ${UNKNOWN_SERVICE} is down (no host runs it)`, alerts: ['LabBillingDown'], cause: 'none a pack can read (run discovery)', service: UNKNOWN_SERVICE, fix: 'none', uncovered: true },
  { name: 'red-herring', title: 'a harmless deploy, then nginx stops', how: 'deploy a new page title (harmless), then stop nginx: the deploy must never be blamed', alerts: ['LabNginxDown', 'LabSiteDown'], cause: 'service_down(nginx), never bad_deploy', service: 'nginx', fix: 'restart unit nginx' },
  { name: 'deploy-then-db-down', title: 'a harmless deploy, then the database stops', how: 'deploy a new page title (harmless), then stop PostgreSQL: the deploy must never be blamed for the app\'s errors', alerts: ['LabPostgresDown', 'LabAppUnhealthy (app)', 'LabAppErrors (app)', 'LabSiteDown (nginx)'], cause: 'service_down(postgresql), never bad_deploy', service: 'postgresql', fix: 'restart unit postgresql' },
  { name: 'two-at-once', title: 'two faults at once: a CPU hog while nginx stops', how: 'start the CPU hog, then stop nginx; nginx\'s episode is measured', alerts: ['LabNginxDown', 'LabSiteDown', 'LabCpuSaturation (app)'], cause: 'service_down(nginx)', service: 'nginx', fix: 'restart unit nginx' },
  { name: 'two-at-once-db', title: 'two faults at once: a memory hog while the database stops', how: 'hold 4 GiB of memory on the app host, then stop PostgreSQL; PostgreSQL\'s episode is measured', alerts: ['LabPostgresDown', 'LabMemoryPressure (app)', 'LabAppUnhealthy (app)', 'LabSiteDown (nginx)'], cause: 'service_down(postgresql)', service: 'postgresql', fix: 'restart unit postgresql' },
  { name: 'db-killed', title: 'the database killed', how: 'kill -9 the postmaster: its pidfile stays, so the gate reports the unit failed; nothing in its log says why', alerts: ['LabPostgresDown', 'LabAppUnhealthy (app)', 'LabSiteDown (nginx)'], cause: 'service_down(postgresql)', service: 'postgresql', fix: 'restart unit postgresql' },
  { name: 'app-crashed', title: 'a bug crashes the app', how: 'SIGUSR2 the app: its bug switch throws an uncaught error, Node prints the stack and exits', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'service_crashed(app): a restart would hide the bug', service: 'app', fix: 'ask_human' },
  { name: 'app-oom', title: 'the app runs out of memory', how: 'SIGTTIN the app: its bug switch leaks until its heap limit (--max-old-space-size=128) and V8 aborts', alerts: ['LabAppDown', 'LabAppUnhealthy', 'LabSiteDown (nginx)'], cause: 'oom_killed(app)', service: 'app', fix: 'ask_human (it would run out again)' },
  { name: 'cert-expired', title: 'the site certificate expired', how: 'issue a certificate that ended yesterday and reload nginx', alerts: ['LabSiteDown', 'LabCertExpiring'], cause: 'cert_expired(nginx), never cert_expiring', service: 'nginx', fix: 'ask_human (renewal is external)' },
  { name: 'db-role-nologin', title: 'the app\'s database role may no longer log in', how: `ALTER ROLE ${APP_ROLE} NOLOGIN and end its sessions`, alerts: ['LabAppUnhealthy', 'LabAppErrors', 'LabSiteDown (nginx)'], cause: 'dependency_auth_refused(app)', service: 'app', fix: 'ask_human (roles are a person\'s)' },
  { name: 'role-connection-limit', title: 'the app\'s role limited to no connections', how: `ALTER ROLE ${APP_ROLE} CONNECTION LIMIT 0 and end its sessions: PostgreSQL says too many connections for the role while its slots are free`, alerts: ['LabAppUnhealthy', 'LabAppErrors', 'LabSiteDown (nginx)'], cause: 'none a pack knows (a per-role limit, not the server\'s slots): abstain or ask', service: 'app', fix: 'ask_human', uncovered: true },
  { name: 'table-renamed', title: 'the table the app reads renamed by hand', how: 'ALTER TABLE pages RENAME TO pages_old: the health check (SELECT 1) passes, every page fails', alerts: ['LabAppErrors', 'LabSiteDown (nginx)'], cause: 'none a pack knows (a schema change by hand): abstain or ask', service: 'app', fix: 'ask_human', uncovered: true },
]; // prettier-ignore

export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name);
}

export function faultInfo(name: FaultName): FaultInfo {
  const info = FAULTS.find((f) => f.name === name);
  if (info === undefined) throw new Error(`no fault ${name}`);
  return info;
}
