// The lab: real programs started on loopback for end-to-end tests (the bundled service,
// Debian's Prometheus and Alertmanager), each in a temporary folder, stopped afterwards.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface Proc {
  readonly url: string;
  readonly dir: string;
  output(): string;
  stop(): Promise<void>;
}

export function freePort(address = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, address, () => {
      const address = srv.address();
      srv.close(() => {
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  });
}

/** Wait until `check` returns something, polling every `everyMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${String(timeoutMs)} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

const INSTALL = (pkg: string) => `apt-get install ${pkg} (npm test does, run as root)`;

export function requireProgram(path: string, pkg: string): void {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${INSTALL(pkg)}`);
}

/** A program found on PATH (a test hides one with pathWithout); throws naming it and its package. */
export function programOnPath(name: string, pkg: string): string {
  for (const dir of (process.env['PATH'] ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error(`${name} is missing (not on PATH): ${INSTALL(pkg)}`);
}

/**
 * For tests: a PATH with every program of this one but `names`, as links in a new folder
 * (which `cleanup` removes), so that a harness meets a missing program.
 */
export function pathWithout(names: readonly string[]): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'path-without-'));
  for (const from of (process.env['PATH'] ?? '').split(':')) {
    if (from === '' || !existsSync(from)) continue;
    for (const f of readdirSync(from)) {
      if (names.includes(f) || existsSync(join(dir, f))) continue;
      symlinkSync(join(from, f), join(dir, f));
    }
  }
  return { path: dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** For tests: the processes whose parent is `pid`, or whose command line mentions `text`. */
export function processesOf(pid: number, text?: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => {
      const [p, ppid] = l.split(/\s+/);
      if (p === undefined || p === String(process.pid) || l.includes(' ps -eo ')) return false;
      return ppid === String(pid) || (text !== undefined && l.includes(text));
    });
}

/**
 * Stops that all run, in reverse order of starting, even when one throws: a harness whose
 * start failed half-way, or an afterAll, stops whatever did start.
 */
export function stopStack() {
  const stops: (() => Promise<unknown>)[] = [];
  return {
    /** Remember how to stop `p`; returns it. */
    keep<T extends { stop(): Promise<unknown> } | { close(): Promise<unknown> }>(p: T): T {
      stops.push(() => ('stop' in p ? p.stop() : p.close()));
      return p;
    },
    async stopAll(): Promise<void> {
      for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
    },
  };
}

/** Start a program, wait until `ready` answers, and give a handle that stops it. */
export async function start(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  url: string,
  readyPath: string,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // A program that cannot be run (ENOENT) is a failed start, not a crash of this process.
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const exited = new Promise((r) => child.once('close', r));
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  try {
    // Not `until`: it would poll on past a child that already exited or never ran.
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (spawnError !== undefined) throw spawnError;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${name} exited: ${out}`);
      const res = await fetch(`${url}${readyPath}`).catch(() => undefined);
      if (res?.ok === true) break;
      if (Date.now() > deadline)
        throw new Error(`timed out after 30000 ms waiting for ${name} at ${url}`);
      await sleep(250);
    }
  } catch (err) {
    if (spawnError === undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    throw new Error(`${name} did not start: ${(err as Error).message}\n${out}`);
  }
  return { child, output: () => out };
}

export function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', () => r('exited')));
      child.kill('SIGTERM');
      // Waited for after SIGKILL too: the caller may check that nothing is left.
      if ((await Promise.race([exited, sleep(5000)])) !== 'exited') {
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

export async function startService(
  env: Record<string, string>,
  options: {
    /** Runs on the folder (data in `<dir>/data`, machine id written) before the service starts. */
    prepare?: (dir: string) => Promise<void>;
  } = {},
): Promise<Proc & { adminToken: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'lab-svc-'));
  const server = join(ROOT, 'dist', 'server.mjs');
  if (!existsSync(server)) throw new Error(`${server} is missing: run node build/bundle.mjs first`);
  const port = await freePort();
  const url = `http://127.0.0.1:${String(port)}`;
  writeFileSync(join(dir, 'machine-id'), '7a1c3e5f9b2d4c6e8f0a1b3c5d7e9f21\n');
  await options.prepare?.(dir);
  const adminToken = 'lab-admin-token-0123456789abcdef';
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')),
  );
  const started = start(
    'the service',
    process.execPath,
    [server],
    {
      ...clean,
      SVC_DATA: join(dir, 'data'),
      SVC_PORT: String(port),
      SVC_BIND: '127.0.0.1',
      SVC_TRIAL: '1',
      SVC_SYSLOG: 'off',
      SVC_LOG_LEVEL: 'warn',
      SVC_MACHINE_ID_FILE: join(dir, 'machine-id'),
      SVC_POLICY: join(dir, 'policy.json'),
      SVC_CONNECTORS: join(dir, 'connectors.json'),
      SVC_ADMIN_TOKEN: adminToken,
      ...env,
    },
    url,
    '/health',
  );
  const { child, output } = await started.catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return { url, dir, output, stop: stopper(child, dir), adminToken };
}

export async function startAlertmanager(webhookUrl: string, ingestToken: string): Promise<Proc> {
  requireProgram('/usr/bin/prometheus-alertmanager', 'prometheus-alertmanager');
  const dir = mkdtempSync(join(tmpdir(), 'lab-am-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'alertmanager.yml'),
    [
      'route:',
      '  receiver: svc',
      "  group_by: ['alertname']",
      '  group_wait: 1s',
      '  group_interval: 1s',
      '  repeat_interval: 1h',
      'receivers:',
      '  - name: svc',
      '    webhook_configs:',
      `      - url: ${webhookUrl}`,
      '        send_resolved: true',
      '        http_config:',
      '          authorization:',
      `            credentials: ${ingestToken}`,
      '',
    ].join('\n'),
  );
  const url = `http://127.0.0.1:${String(port)}`;
  const { child, output } = await start(
    'alertmanager',
    '/usr/bin/prometheus-alertmanager',
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
      '--cluster.listen-address=',
    ],
    process.env,
    url,
    '/-/ready',
  );
  return { url, dir, output, stop: stopper(child, dir) };
}

export async function startPrometheus(
  target: string,
  alertmanager: string,
  rules: string,
): Promise<Proc> {
  requireProgram('/usr/bin/prometheus', 'prometheus');
  const dir = mkdtempSync(join(tmpdir(), 'lab-prom-'));
  const port = await freePort();
  writeFileSync(join(dir, 'rules.yml'), rules);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'rule_files: [rules.yml]',
      'alerting:',
      '  alertmanagers:',
      `    - static_configs: [{ targets: ['${alertmanager}'] }]`,
      'scrape_configs:',
      '  - job_name: lab',
      `    static_configs: [{ targets: ['${target}'] }]`,
      '',
    ].join('\n'),
  );
  const url = `http://127.0.0.1:${String(port)}`;
  const { child, output } = await start(
    'prometheus',
    '/usr/bin/prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
    ],
    process.env,
    url,
    '/-/ready',
  );
  return { url, dir, output, stop: stopper(child, dir) };
}
