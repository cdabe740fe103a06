// svc-core estate build | resolve ALERT.
//   build: a discovery. While the service runs (it holds the data folder) or with --url, it
//   goes through the API (POST /v1/discover with the admin token, then GET /v1/jobs/<id>),
//   so the service's single writer keeps the ledger; with the service stopped it takes the
//   data folder and runs the discovery itself. Prints progress and a summary; exit 1 when the
//   job or any connector failed.
//   resolve ALERT: which service an alert's labels mean, read from the data folder. ALERT is a
//   JSON object of labels (or an alert with a `labels` object), or key=value,key=value.
//   Exit 1 when none.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminTokenFile } from '../access/index.js';
import type { Config } from '../config.js';
import type { ConnectorsService } from '../connectors/index.js';
import type { EstateView, JobView } from '../estate/index.js';
import { databaseFile, lockDataDir, lockHolder } from '../install/index.js';
import { buildToolEstate, type Runtime } from '../compose/index.js';

type Out = { log(line: string): void; error(line: string): void };

export interface EstateCliDeps {
  readonly config: () => Config;
  readonly runtime: (cfg: Config, options?: { write?: boolean }) => Runtime;
  readonly connectorsOf: (rt: Runtime) => ConnectorsService;
}

export const ESTATE_USAGE = `  estate build [--url URL] [--json]
                                  discover services and links from every connector that
                                  can; through the running service, or directly when it is
                                  stopped; non-zero if the job or any connector fails
  estate resolve ALERT [--json]   which service an alert belongs to; ALERT is a JSON object
                                  of labels or key=value,...; exit 1 when none`;

const ACTOR = { name: 'svc-core' };
const POLL_MS = 200;

/** ALERT as labels: a JSON object (or an alert's `labels`), or `key=value,key=value`. */
export function parseAlert(text: string): Record<string, string> {
  const s = text.trim();
  if (s.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(s);
    } catch (err) {
      throw new Error(`ALERT is not valid JSON: ${(err as Error).message}`);
    }
    const o = parsed as Record<string, unknown>;
    const labels =
      typeof o['labels'] === 'object' && o['labels'] !== null && !Array.isArray(o['labels'])
        ? (o['labels'] as Record<string, unknown>)
        : o;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(labels)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    }
    if (Object.keys(out).length === 0) throw new Error('ALERT has no labels');
    return out;
  }
  const out: Record<string, string> = {};
  for (const part of s.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`ALERT: "${part.trim()}" is not key=value`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  if (Object.keys(out).length === 0) throw new Error('ALERT has no labels');
  return out;
}

/** The lines that end a build: each connector, then the estate in numbers. */
export function summary(job: JobView, view: EstateView | null): string[] {
  const lines: string[] = [];
  for (const [name, r] of Object.entries(job.result?.per_connector ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    lines.push(
      `${(r.status === 'ok' ? 'ok' : 'fail').padEnd(5)} ${name}${r.detail === null ? '' : `: ${r.detail}`}`,
    );
  }
  if (job.status === 'failed') {
    lines.push(`discovery ${job.id} failed`);
    return lines;
  }
  if (job.progress.total === 0) lines.push('no connector can discover anything');
  const n = (k: number, one: string, many: string) => `${String(k)} ${k === 1 ? one : many}`;
  const parts = [
    n(job.result?.services ?? 0, 'service', 'services'),
    n(job.result?.links ?? 0, 'link', 'links'),
  ];
  if (view !== null) {
    parts.push(
      n(view.candidates.length, 'candidate', 'candidates'),
      n(view.unlinked.length, 'unlinked', 'unlinked'),
      n(view.problems.length, 'problem', 'problems'),
    );
  }
  lines.push(`estate: ${parts.join(', ')}`);
  for (const p of view?.problems ?? []) lines.push(`problem ${p.what}: ${p.detail}`);
  return lines;
}

const failed = (job: JobView): boolean =>
  job.status !== 'done' ||
  Object.values(job.result?.per_connector ?? {}).some((r) => r.status === 'failed');

/** Prints a progress line whenever the job moves. */
function progressPrinter(out: Out) {
  let last = '';
  return (job: JobView) => {
    const line = `progress ${String(job.progress.done)}/${String(job.progress.total)}${job.progress.step === undefined ? '' : `: ${job.progress.step}`}`;
    if (line !== last) out.log(line);
    last = line;
  };
}

function serviceUrl(cfg: Config, url: string | undefined): string {
  if (url !== undefined) return url.replace(/\/+$/, '');
  const host = cfg.http.bind === '0.0.0.0' || cfg.http.bind === '::' ? '127.0.0.1' : cfg.http.bind;
  return `http://${host.includes(':') ? `[${host}]` : host}:${String(cfg.http.port)}`;
}

function adminToken(cfg: Config): string {
  if (cfg.tokens.admin !== null) return cfg.tokens.admin.reveal();
  const file = adminTokenFile(cfg.dataDir);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(`no admin token: set SVC_ADMIN_TOKEN, or run where ${file} can be read`);
  }
}

async function buildThroughApi(cfg: Config, url: string, json: boolean, out: Out): Promise<number> {
  const headers = { authorization: `Bearer ${adminToken(cfg)}` };
  const ask = async (method: string, path: string): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${url}${path}`, { method, headers, signal: AbortSignal.timeout(10_000) });
    } catch (err) {
      const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error) : null;
      throw new Error(`${url}: no answer (${(cause ?? (err as Error)).message})`);
    }
    const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (!res.ok) {
      const message = typeof body?.['message'] === 'string' ? body['message'] : res.statusText;
      throw new Error(`${method} ${path} answered ${String(res.status)}: ${message}`);
    }
    return body;
  };
  const { job_id: id } = (await ask('POST', '/v1/discover')) as { job_id: string };
  if (!json) out.log(`discovery ${id} started at ${url}`);
  const show = progressPrinter(out);
  const deadline = Date.now() + (cfg.discoverTimeoutS + 60) * 1000;
  let job = (await ask('GET', `/v1/jobs/${encodeURIComponent(id)}`)) as JobView;
  while (job.status === 'running') {
    if (!json) show(job);
    if (Date.now() > deadline) throw new Error(`discovery ${id} still running; giving up`);
    await sleep(POLL_MS);
    job = (await ask('GET', `/v1/jobs/${encodeURIComponent(id)}`)) as JobView;
  }
  if (!json) show(job);
  const view = (await ask('GET', '/v1/estate').catch(() => null)) as EstateView | null;
  report(job, view, json, out);
  return failed(job) ? 1 : 0;
}

async function buildDirectly(
  cfg: Config,
  json: boolean,
  out: Out,
  deps: EstateCliDeps,
): Promise<number> {
  const unlock = lockDataDir(cfg.dataDir);
  try {
    const rt = deps.runtime(cfg, { write: true });
    const connectors = deps.connectorsOf(rt);
    try {
      const estate = buildToolEstate(rt, connectors);
      const { job_id: id, done } = estate.discover(ACTOR);
      if (!json) out.log(`discovery ${id} started in ${cfg.dataDir}`);
      const show = progressPrinter(out);
      let finished = false;
      const ended = done.then(() => {
        finished = true;
      });
      while (!finished) {
        if (!json) show(estate.job(id));
        await Promise.race([ended, sleep(POLL_MS)]);
      }
      const job = estate.job(id);
      if (!json) show(job);
      report(job, estate.view(), json, out);
      return failed(job) ? 1 : 0;
    } finally {
      await connectors.close();
      rt.close();
    }
  } finally {
    unlock();
  }
}

function report(job: JobView, view: EstateView | null, json: boolean, out: Out): void {
  if (json) {
    out.log(JSON.stringify({ job, estate: view }, null, 2));
    return;
  }
  for (const line of summary(job, view)) out.log(line);
}

export async function estateCommand(
  positionals: readonly string[],
  values: { json: boolean; url?: string | undefined },
  out: Out,
  deps: EstateCliDeps,
): Promise<number> {
  const [sub, ...rest] = positionals;
  const cfg = deps.config();
  if (sub === 'build' && rest.length === 0) {
    if (!existsSync(databaseFile(cfg.dataDir))) {
      out.error(`no data folder at ${cfg.dataDir}: start the service once first`);
      return 1;
    }
    const holder = lockHolder(cfg.dataDir);
    if (values.url !== undefined || holder !== null) {
      return buildThroughApi(cfg, serviceUrl(cfg, values.url), values.json, out);
    }
    return buildDirectly(cfg, values.json, out, deps);
  }
  if (sub === 'resolve' && rest.length === 1) {
    let labels: Record<string, string>;
    try {
      labels = parseAlert(rest[0] ?? '');
    } catch (err) {
      out.error(`svc-core estate resolve: ${(err as Error).message}`);
      return 2;
    }
    if (!existsSync(databaseFile(cfg.dataDir))) {
      out.error(`no data folder at ${cfg.dataDir}: no estate to resolve against`);
      return 1;
    }
    const rt = deps.runtime(cfg);
    try {
      const estate = buildToolEstate(rt);
      const found = estate.resolve(labels);
      if (values.json) out.log(JSON.stringify(found));
      else if (found === null) out.error('no service: no alias, service label or host matches');
      else out.log(`${found.service} (${found.by})`);
      return found === null ? 1 : 0;
    } finally {
      rt.close();
    }
  }
  out.error(`svc-core estate: use build, or resolve ALERT\n${ESTATE_USAGE}`);
  return 2;
}
