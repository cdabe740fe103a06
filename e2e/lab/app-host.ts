// The app host: our small web app (app/server.mjs) run by node as a unit with a pidfile,
// its log and cache on a small volume of its own. The volume is a 16 MiB tmpfs when this
// machine lets us mount (root in most containers can); otherwise a plain folder whose
// usage the lab reports through the node exporter's textfile collector as if it were a
// 16 MiB filesystem (see volume.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { UnitFiles } from './layout.js';
import { ROOT } from './processes.js';
import { writeUnit } from './units.js';

export const APP_SERVER = join(ROOT, 'e2e', 'lab', 'app', 'server.mjs');
/** The app's heap limit: its leak (the app-oom fault) reaches it in seconds. */
const APP_HEAP_MB = 128;

export interface AppOptions {
  readonly dir: string;
  readonly address: string;
  readonly port: number;
  /** The deployed config file. */
  readonly config: string;
  readonly passwordFile: string;
  /** The volume holding log/ and cache/. */
  readonly volume: string;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function prepareApp(o: AppOptions): UnitFiles {
  mkdirSync(join(o.volume, 'log'), { recursive: true });
  mkdirSync(join(o.volume, 'cache'), { recursive: true });
  const pidfile = join(o.dir, 'app.pid');
  const log = join(o.volume, 'log', 'app.log');
  const env = [
    `LAB_APP_CONFIG=${q(o.config)}`,
    `LAB_APP_LISTEN=${q(`${o.address}:${String(o.port)}`)}`,
    `LAB_APP_DB_PASSWORD_FILE=${q(o.passwordFile)}`,
  ].join(' ');
  // setsid -f: the app outlives the gate's ssh session; `exec` keeps the pid in the pidfile.
  // "Started" means this very process listens on its own address (as systemd's notify would):
  // another process on the port, or an app that died at start, fails the start with its log.
  const at = `${o.address}:${String(o.port)}`;
  const start = [
    `if [ -s ${pidfile} ] && kill -0 "$(cat ${pidfile})" 2>/dev/null; then exit 0; fi`,
    `rm -f ${pidfile}`,
    `export ${env}`,
    `setsid -f sh -c 'echo $$ > ${pidfile}; exec ${process.execPath} --max-old-space-size=${String(APP_HEAP_MB)} ${APP_SERVER} >> ${log} 2>&1' < /dev/null > /dev/null 2>&1`,
    'i=0',
    `while [ $i -lt 150 ]; do`,
    `  if [ -s ${pidfile} ]; then`,
    `    pid=$(cat ${pidfile})`,
    `    ss -Htlnp src ${at} | grep -q "pid=$pid," && exit 0`,
    `    if ! kill -0 "$pid" 2>/dev/null; then`,
    `      echo "app exited at start; its log ends:" >&2; tail -n 5 ${log} >&2; exit 1`,
    '    fi',
    '  fi',
    '  i=$((i + 1)); sleep 0.1',
    'done',
    `echo "app did not listen on ${at} within 15 s" >&2`,
    'exit 1',
  ].join('\n');
  const stop = `[ -r ${pidfile} ] || exit 0\nkill -TERM "$(cat ${pidfile})" 2>/dev/null || true`;
  return writeUnit(join(o.dir, 'bin'), 'app', { pidfile, log }, { start, stop });
}
