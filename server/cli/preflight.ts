// Preflight: can this host run the service? Host, SQLite, disk, identity, licence,
// accelerator and TCP reach of every tool; --deep also asks each connector.
import { existsSync, accessSync, constants, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, totalmem } from 'node:os';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { compareVersions, MIN_SQLITE } from '../db/open.js';
import { freeShare, type CheckStatus } from '../doctor/index.js';
import { computeFingerprint, databaseFile } from '../install/index.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';

export interface PreflightLine {
  readonly status: CheckStatus;
  readonly check: string;
  readonly detail: string;
}

function tcpReach(host: string, port: number, timeoutMs = 3000): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (problem: string | null): void => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMs, () => {
      done(`no answer within ${String(timeoutMs / 1000)} s`);
    });
    socket.once('connect', () => {
      done(null);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      done(err.code ?? err.message);
    });
  });
}

/** What --deep reports of one connector. */
export interface ConnectionHealthLine {
  readonly name: string;
  readonly kind: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly duration_ms: number;
}

export async function preflight(
  config: Config,
  options: {
    deep: boolean;
    nodeVersion?: string;
    /** --deep: each connector's health (null: no data folder yet). */
    connections?: () => Promise<readonly ConnectionHealthLine[] | null>;
  },
): Promise<PreflightLine[]> {
  const lines: PreflightLine[] = [];
  const add = (status: CheckStatus, check: string, detail: string): void => {
    lines.push({ status, check, detail });
  };

  const node = options.nodeVersion ?? process.versions.node;
  add(
    compareVersions(node, '20.19.0') >= 0 ? 'ok' : 'fail',
    'host: node',
    `Node.js ${node} (needs 20.19 or newer)`,
  );
  const cores = cpus().length;
  const memGiB = totalmem() / 2 ** 30;
  add(
    cores >= 8 && memGiB >= 30 ? 'ok' : 'warn',
    'host: size',
    `${String(cores)} vCPU, ${memGiB.toFixed(1)} GiB memory (recommended 8 vCPU, 32 GB)`,
  );

  const mem = new Database(':memory:');
  const sqlite = (mem.prepare('select sqlite_version() v').get() as { v: string }).v;
  mem.close();
  add(
    compareVersions(sqlite, MIN_SQLITE) >= 0 ? 'ok' : 'fail',
    'host: sqlite',
    `SQLite ${sqlite} (needs ${MIN_SQLITE} or newer)`,
  );

  try {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    accessSync(config.dataDir, constants.W_OK);
    const { free, total } = await freeShare(config.dataDir);
    const share = total > 0 ? free / total : 0;
    add(
      share >= 0.15 ? 'ok' : share >= 0.05 ? 'warn' : 'fail',
      'disk: data volume',
      `${config.dataDir} writable, ${(share * 100).toFixed(1)}% free (needs 15%)`,
    );
  } catch (err) {
    add(
      'fail',
      'disk: data volume',
      `${config.dataDir} is not writable (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }

  const fp = computeFingerprint(config.identity);
  add(
    fp.ok ? 'ok' : 'fail',
    'licence: install identity',
    fp.ok ? `fingerprint ${fp.fingerprint} (from ${fp.source})` : fp.problem,
  );
  const licenceFile = existsSync(config.files.licence);
  add(...licenceLine(config, licenceFile));

  const gpu =
    existsSync('/dev/nvidia0') || existsSync('/dev/dri/renderD128') || existsSync('/dev/kfd');
  if (gpu) add('ok', 'accelerator', 'a GPU device is present for local models');
  else if (config.model.url !== null)
    add('ok', 'accelerator', 'no GPU; models are behind endpoints');
  else
    add(
      'warn',
      'accelerator',
      'no GPU and no SVC_MODEL_URL: investigations run without models (never on the CPU)',
    );

  const tools: { name: string; url: string }[] = [];
  if (config.model.url !== null) tools.push({ name: 'model endpoint', url: config.model.url });
  if (config.s1.url !== null) tools.push({ name: 'System 1 endpoint', url: config.s1.url });
  if (config.licence.authorityUrl !== null && config.licence.check !== 'offline')
    tools.push({ name: 'licence authority', url: config.licence.authorityUrl });
  if (config.syslog.destination.includes('://'))
    tools.push({ name: 'syslog', url: config.syslog.destination });
  if (tools.length === 0) add('ok', 'reach', 'no tools configured yet');
  for (const tool of tools) {
    const u = new URL(tool.url);
    const defaults: Record<string, number> = {
      'https:': 443,
      'http:': 80,
      'tcp:': 514,
      'tls:': 6514,
    };
    if (u.protocol === 'udp:') {
      add('ok', `reach: ${tool.name}`, `${u.host} over UDP (not checkable)`);
      continue;
    }
    const port = u.port !== '' ? Number(u.port) : (defaults[u.protocol] ?? 443);
    const problem = await tcpReach(u.hostname, port);
    add(
      problem === null ? 'ok' : 'fail',
      `reach: ${tool.name}`,
      problem === null
        ? `${u.hostname}:${String(port)} answers`
        : `${u.hostname}:${String(port)}: ${problem}`,
    );
  }
  if (options.deep) {
    const health = (await options.connections?.()) ?? null;
    if (health === null) add('ok', 'deep: connectors', 'no data folder yet: no connectors');
    else if (health.length === 0) add('warn', 'deep: connectors', 'no connectors configured');
    for (const h of health ?? []) {
      add(
        h.ok ? 'ok' : 'fail',
        `deep: ${h.name}`,
        `${h.kind}: ${h.detail} (${String(h.duration_ms)} ms)`,
      );
    }
  }
  return lines;
}

/** The licence an install already holds (its data folder), else what its start would do. */
function licenceLine(config: Config, licenceFile: boolean): [CheckStatus, string, string] {
  if (existsSync(databaseFile(config.dataDir))) {
    let rt: ReturnType<typeof createRuntime>;
    try {
      rt = createRuntime(config, { log: createLogger('silent'), readOnly: true });
    } catch (err) {
      // An older schema (the service migrates it at start) or an unreadable file.
      return ['warn', 'licence: held', (err as Error).message];
    }
    try {
      const v = rt.licence.view();
      if (v !== null) {
        const what = `${v.kind} (${v.tier}), ${v.expires_at === null ? 'perpetual' : `expires ${v.expires_at}`}`;
        if (!v.valid)
          return ['fail', 'licence: held', `${v.why ?? 'not valid'}: ${what}; install a licence`];
        const left = v.days_left === null ? '' : `, ${String(v.days_left)} days left`;
        return [
          v.in_grace || (v.days_left !== null && v.days_left <= 14) ? 'warn' : 'ok',
          'licence: held',
          `${what}${left}`,
        ];
      }
    } finally {
      rt.close();
    }
  }
  if (licenceFile) return ['ok', 'licence: file', `${config.files.licence} present`];
  if (config.trial) return ['ok', 'licence: file', 'offline trial at first start (SVC_TRIAL=1)'];
  return [
    'warn',
    'licence: file',
    `no licence file at ${config.files.licence}; start a trial or install one`,
  ];
}
