// Debian's Prometheus, Alertmanager and exporters, started as children of the lab process
// (they are the watchers, not the watched: no fault stops them, so they need no unit).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireProgram, start, stopper, type Proc } from './processes.js';

async function daemon(
  name: string,
  program: string,
  pkg: string,
  args: string[],
  listen: string,
  readyPath: string,
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Proc> {
  requireProgram(program, pkg);
  mkdirSync(dir, { recursive: true });
  const url = `http://${listen}`;
  const { child, output } = await start(name, program, args, env, url, readyPath);
  return { url, dir, output, stop: stopper(child, dir) };
}

export function startNodeExporter(listen: string, dir: string, textfileDir?: string) {
  const collectors = ['cpu', 'meminfo', 'filesystem', 'loadavg', 'stat', 'pressure', 'uname'];
  return daemon(
    `node exporter on ${listen}`,
    '/usr/bin/prometheus-node-exporter',
    'prometheus-node-exporter',
    [
      `--web.listen-address=${listen}`,
      '--collector.disable-defaults',
      ...collectors.map((c) => `--collector.${c}`),
      ...(textfileDir !== undefined
        ? ['--collector.textfile', `--collector.textfile.directory=${textfileDir}`]
        : []),
    ],
    listen,
    '/metrics',
    dir,
  );
}

export function startBlackboxExporter(listen: string, dir: string, config: string) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'blackbox.yml'), config);
  return daemon(
    'blackbox exporter',
    '/usr/bin/prometheus-blackbox-exporter',
    'prometheus-blackbox-exporter',
    [`--config.file=${join(dir, 'blackbox.yml')}`, `--web.listen-address=${listen}`],
    listen,
    '/metrics',
    dir,
  );
}

/** Reads PostgreSQL as the superuser over the unix socket (no password on the command line). */
export function startPostgresExporter(
  listen: string,
  dir: string,
  pg: { socketDir: string; port: number },
) {
  return daemon(
    'postgres exporter',
    '/usr/bin/prometheus-postgres-exporter',
    'prometheus-postgres-exporter',
    [`--web.listen-address=${listen}`],
    listen,
    '/metrics',
    dir,
    {
      ...process.env,
      DATA_SOURCE_NAME: `host=${pg.socketDir} port=${String(pg.port)} user=postgres dbname=postgres sslmode=disable`,
    },
  );
}

export function startNginxExporter(listen: string, dir: string, statusUrl: string) {
  return daemon(
    'nginx exporter',
    '/usr/bin/prometheus-nginx-exporter',
    'prometheus-nginx-exporter',
    [`-nginx.scrape-uri=${statusUrl}`, `-web.listen-address=${listen}`, '-nginx.retries=0'],
    listen,
    '/metrics',
    dir,
  );
}

export function startLabPrometheus(listen: string, dir: string, config: string, rules: string) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'prometheus.yml'), config);
  writeFileSync(join(dir, 'rules.yml'), rules);
  return daemon(
    'prometheus',
    '/usr/bin/prometheus',
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=${listen}`,
      '--storage.tsdb.retention.time=1d',
    ],
    listen,
    '/-/ready',
    dir,
  );
}

export function startLabAlertmanager(listen: string, dir: string, config: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The ingest token is in this file: readable by root only.
  writeFileSync(join(dir, 'alertmanager.yml'), config, { mode: 0o600 });
  return daemon(
    'alertmanager',
    '/usr/bin/prometheus-alertmanager',
    'prometheus-alertmanager',
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=${listen}`,
      '--cluster.listen-address=',
    ],
    listen,
    '/-/ready',
    dir,
  );
}
