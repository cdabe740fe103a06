// `npm run lab`: the lab in the foreground, and inject/heal/status/faults from any other
// terminal (they read <lab>/lab.json). Exit status: 0 done, 1 failed, 2 usage.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, USAGE, UsageError, type Command } from './cli-args.js';
import { connectors, type Api } from './connect.js';
import { activeFaults, FAULTS, faultInfo, heal, inject } from './faults.js';
import { alive, labDir, readState, type LabState } from './layout.js';
import { startLab, unitsUp, type Lab } from './lab.js';
import { ROOT } from './processes.js';

const say = (line = '') => {
  process.stdout.write(`${line}\n`);
};

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const port = (url: string) => url.replace(/^https?:\/\//, '');

export function describe(s: LabState): string {
  const h = s.hosts;
  const ssh = (n: 'web' | 'app' | 'db') => `sshd :${String(h[n].ssh_port)} (gate)`;
  const rows = [
    ['host', 'address', 'runs'],
    ['web', h.web.address, `nginx https://${h.web.address}:${String(s.web.https_port)}/ (stub_status :${String(s.web.status_port)}), nginx exporter ${port(s.monitor.nginx_exporter)}, node exporter ${port(s.monitor.node_exporters.web)}, ${ssh('web')}`],
    ['app', h.app.address, `app http://${h.app.address}:${String(s.app.port)}/ (/healthz, /metrics), node exporter ${port(s.monitor.node_exporters.app)}, ${ssh('app')}`],
    ['db', h.db.address, `PostgreSQL ${h.db.address}:${String(s.db.port)} (database ${s.db.database}), postgres exporter ${port(s.monitor.postgres_exporter)}, node exporter ${port(s.monitor.node_exporters.db)}, ${ssh('db')}`],
    ['monitor', h.monitor.address, `Prometheus ${s.monitor.prometheus}, Alertmanager ${s.monitor.alertmanager}, blackbox exporter ${port(s.monitor.blackbox)}`],
    ['service', '127.0.0.1', `${s.service.url}/ (console and API)`],
  ]; // prettier-ignore
  return [
    table(rows),
    '',
    `Deploy repository: ${s.deploy.repo} (config.json → ${s.app.config})`,
    `App volume: ${s.app.volume} (${s.app.volume_mounted ? '16 MiB tmpfs' : 'plain folder, not mounted'})`,
    `Admin token: in ${s.service.admin_token_file}`,
  ].join('\n');
}

async function firing(s: LabState): Promise<string[]> {
  const res = await fetch(`${s.monitor.prometheus}/api/v1/alerts`);
  const body = (await res.json()) as {
    data: { alerts: { state: string; labels: Record<string, string> }[] };
  };
  return body.data.alerts
    .filter((a) => a.state === 'firing')
    .map((a) => `${a.labels['alertname'] ?? '?'} (${a.labels['service'] ?? '?'})`);
}

async function status(s: LabState): Promise<void> {
  say(
    `Lab in ${s.dir}, started ${s.started_at} by pid ${String(s.pid)}${alive(s.pid) ? '' : ' (gone: stale)'}`,
  );
  say(describe(s));
  say();
  say(`Units: ${Object.entries(unitsUp(s)).map(([u, up]) => `${u} ${up ? 'running' : 'DOWN'}`).join(', ')}`); // prettier-ignore
  const active = Object.keys(activeFaults(s));
  say(`Active faults: ${active.length > 0 ? active.join(', ') : 'none'}`);
  const alerts = await firing(s).catch((err: unknown) => [`(Prometheus: ${String(err)})`]);
  say(`Firing alerts: ${alerts.length > 0 ? alerts.join(', ') : 'none'}`);
  const a: Api = {
    url: s.service.url,
    token: readFileSync(s.service.admin_token_file, 'utf8').trim(),
  };
  const list = await connectors(a).catch(() => null);
  if (list === null) {
    say('Connectors: the service does not answer');
    return;
  }
  say('Connectors:');
  for (const c of list) {
    const health = c.last_health === null ? 'not checked yet' : c.last_health.ok ? 'ok' : `FAILING: ${c.last_health.detail ?? ''}`;
    say(`  ${c.name.padEnd(14)} ${c.kind.padEnd(13)} ${c.problem ?? health}`);
  } // prettier-ignore
}

function listFaults(): void {
  for (const f of FAULTS) {
    say(`${f.name}: ${f.title}`);
    say(`  how     ${f.how}`);
    say(`  alerts  ${f.alerts.join(', ')}`);
    say(`  truth   ${f.cause} on ${f.service}; fix: ${f.fix}`);
  }
  say('\nDetails: docs/lab.md');
}

async function foreground(): Promise<void> {
  const dir = labDir();
  // Built here rather than in the npm script, so inject/heal/status do not rebuild each time.
  if (process.env['SVC_LAB_BUILD'] !== '0') {
    say('Building the service (node build/bundle.mjs) …');
    execFileSync(process.execPath, [join(ROOT, 'build', 'bundle.mjs')], { stdio: 'inherit' });
  }
  // Signals are taken from the start: Ctrl-C while starting stops what has started once
  // the start returns (or fails), instead of leaving daemons behind.
  let lab: Lab | null = null;
  let stopping: string | null = null;
  const stop = (signal: string) => {
    if (stopping !== null) {
      say('Stopping already; once more after it finishes, or kill the lab by its pid.');
      return;
    }
    stopping = signal;
    if (lab === null) return;
    say(`\n${signal}: stopping the lab …`);
    lab.stop().then(
      () => {
        say('The lab is stopped.');
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`stopping failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  say(`Starting the lab in ${dir} …`);
  const started = await startLab({
    dir,
    mount: process.env['SVC_LAB_MOUNT'] !== '0',
    log: (l) => say(`  ${l}`),
  });
  lab = started;
  if (stopping !== null) {
    const signal: string = stopping;
    stopping = null;
    stop(signal);
    return;
  }
  say();
  say(describe(started.state));
  say();
  say(`Console: ${started.state.service.url}/ (sign in with the admin token in ${started.state.service.admin_token_file})`); // prettier-ignore
  say('From another terminal: npm run lab -- faults | inject <fault> | heal [fault] | status');
  say('Ctrl-C stops everything.');
  // Keep the process alive until a signal.
  setInterval(() => undefined, 60_000);
}

/** The state of a lab whose process still runs (inject/heal on a dead lab would do harm). */
function runningLab(): LabState {
  const s = readState(labDir());
  if (!alive(s.pid))
    throw new Error(
      `the lab in ${s.dir} is not running (pid ${String(s.pid)} is gone): start it with \`npm run lab\``,
    );
  return s;
}

export async function main(command: Command): Promise<void> {
  switch (command.cmd) {
    case 'help':
      say(USAGE);
      return;
    case 'faults':
      listFaults();
      return;
    case 'start':
      return foreground();
    case 'status':
      return status(readState(labDir()));
    case 'inject': {
      const s = runningLab();
      await inject(s, command.fault);
      const f = faultInfo(command.fault);
      say(`Injected ${f.name}: ${f.how}.`);
      say(
        `Expect: ${f.alerts.join(', ')}. Ground truth: ${f.cause} on ${f.service}; fix: ${f.fix}.`,
      );
      return;
    }
    case 'heal': {
      const s = runningLab();
      const healed = await heal(s, command.fault);
      say(healed.length > 0 ? `Healed: ${healed.join(', ')}.` : 'No active faults.');
      return;
    }
  }
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  let command: Command;
  try {
    command = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  main(command).catch((err: unknown) => {
    process.stderr.write(`lab: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
