// Where the lab keeps things, and its state file. Everything a second terminal needs to
// inject or heal a fault (addresses, ports, unit scripts, pidfiles) is written to
// `<lab>/lab.json` at start, so `npm run lab -- inject …` works without the running process.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_LAB_DIR = '/tmp/svc-lab';

/** The lab folder: SVC_LAB_DIR, else /tmp/svc-lab. */
export function labDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env['SVC_LAB_DIR'];
  return dir !== undefined && dir !== '' ? dir : DEFAULT_LAB_DIR;
}

/** The loopback addresses that tell the hosts apart, from a /24 prefix like "127.0.1". */
export function hostAddresses(net: string) {
  return {
    web: `${net}.1`,
    app: `${net}.2`,
    db: `${net}.3`,
    monitor: `${net}.4`,
  } as const;
}
export type HostName = keyof ReturnType<typeof hostAddresses>;

/** A unit as the gate knows it on a host without systemd: scripts and a pidfile. */
export interface UnitFiles {
  readonly start: string;
  readonly stop: string;
  readonly reload?: string;
  readonly pidfile: string;
  readonly log: string;
}

export interface LabState {
  readonly version: 1;
  readonly dir: string;
  /** The process that runs the lab (the CLI in the foreground, or a test worker). */
  readonly pid: number;
  readonly started_at: string;
  readonly net: string;
  readonly service: { readonly url: string; readonly admin_token_file: string };
  readonly hosts: Readonly<
    Record<HostName, { readonly address: string; readonly ssh_port: number | null }>
  >;
  readonly web: {
    readonly https_port: number;
    readonly status_port: number;
    readonly conf: string;
    readonly cert: string;
    readonly key: string;
    readonly ca: string;
    readonly unit: UnitFiles;
  };
  readonly app: {
    readonly port: number;
    /** The deployed config file the app reads. */
    readonly config: string;
    /** The app host's data volume (a tmpfs when mounting works): logs and the cache. */
    readonly volume: string;
    readonly volume_mounted: boolean;
    readonly cache: string;
    readonly unit: UnitFiles;
  };
  readonly db: {
    readonly port: number;
    readonly socket_dir: string;
    readonly max_connections: number;
    readonly database: string;
    readonly batch_role: string;
    readonly batch_password_file: string;
    /** the app role's password as the lab set it (faults change it, heal puts it back) */
    readonly app_password_file: string;
    readonly unit: UnitFiles;
  };
  readonly deploy: { readonly repo: string; readonly config_path: string };
  readonly monitor: {
    readonly prometheus: string;
    readonly alertmanager: string;
    readonly blackbox: string;
    readonly node_exporters: Readonly<Record<'web' | 'app' | 'db', string>>;
    readonly postgres_exporter: string;
    readonly nginx_exporter: string;
  };
  readonly textfile_dir: string;
}

export const statePath = (dir: string) => join(dir, 'lab.json');

export function writeState(state: LabState): void {
  writeFileSync(statePath(state.dir), `${JSON.stringify(state, null, 2)}\n`);
}

/** The running lab's state, or an error that says how to start one. */
export function readState(dir: string): LabState {
  const file = statePath(dir);
  if (!existsSync(file))
    throw new Error(`no lab in ${dir}: start one with \`npm run lab\` (or set SVC_LAB_DIR)`);
  return JSON.parse(readFileSync(file, 'utf8')) as LabState;
}

/** Whether a process is alive (signal 0 tests without sending anything). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
