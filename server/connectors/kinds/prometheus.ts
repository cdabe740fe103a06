// The prometheus connector kind: PromQL instant and range queries, scrape targets (for
// discovery), label names and values, firing alerts, and its setup (what-changed
// snapshots), over Prometheus' HTTP API v1.
// Uses global fetch with the caller's AbortSignal; bodies are bounded; redirects are not
// followed (so credentials never travel to another address).
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import {
  clip,
  parseAlerts,
  parseBuildInfo,
  parseInstant,
  parseRange,
  parseStringList,
  parseTargets,
  unwrap,
} from './prometheus.parse.js';
import { elapsedMs } from './settings.js';
import { AUTH_SETTINGS, createHttpApi } from './http-api.js';
import { sha256, yamlSectionHashes, type SetupFacts } from './setup-facts.js';

/** Prometheus refuses range queries of more than 11,000 points per series. */
const MAX_RANGE_POINTS = 11_000;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const OPERATIONS = ['query', 'range_query', 'targets', 'labels', 'alerts', 'setup'] as const;

/**
 * Command-line flags whose change matters to "what changed" (retention, limits, features,
 * alerting timing). Paths and listen addresses are left out: they differ between hosts
 * without meaning a change of behaviour.
 */
export const SETUP_FLAGS = [
  'alertmanager.notification-queue-capacity',
  'enable-feature',
  'query.lookback-delta',
  'query.max-concurrency',
  'query.max-samples',
  'query.timeout',
  'rules.alert.for-grace-period',
  'rules.alert.for-outage-tolerance',
  'rules.alert.resend-delay',
  'storage.tsdb.retention',
  'storage.tsdb.retention.size',
  'storage.tsdb.retention.time',
  'web.enable-admin-api',
  'web.enable-lifecycle',
  'web.enable-remote-write-receiver',
  'web.external-url',
  'web.route-prefix',
] as const;

const asRecord = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

/**
 * One fact per rule group, `rule_group.<file name>/<group>` → SHA-256 of what defines it
 * (interval, limit, and each rule's kind, name, expression, duration, labels and
 * annotations); evaluation state is left out, so only an edit changes the hash. The file's
 * folder is left out too: it is where the host keeps it, not what it says.
 */
export function ruleGroupFacts(data: unknown): SetupFacts {
  const out: SetupFacts = {};
  for (const raw of asList(asRecord(data)['groups'])) {
    const g = asRecord(raw);
    const name = typeof g['name'] === 'string' ? g['name'] : '';
    const file = typeof g['file'] === 'string' ? (g['file'].split('/').pop() ?? '') : '';
    const rules = asList(g['rules']).map((r) => {
      const rule = asRecord(r);
      return [
        rule['type'],
        rule['name'],
        rule['query'],
        rule['duration'] ?? null,
        rule['labels'] ?? null,
        rule['annotations'] ?? null,
      ];
    });
    out[`rule_group.${file}/${name}`] = sha256(
      JSON.stringify([g['interval'] ?? null, g['limit'] ?? null, rules]),
    );
  }
  return out;
}

/** The flags of SETUP_FLAGS that this Prometheus has, as `flag.<name>`. */
export function flagFacts(data: unknown): SetupFacts {
  const flags = asRecord(data);
  const out: SetupFacts = {};
  for (const name of SETUP_FLAGS) {
    const value = flags[name];
    if (typeof value === 'string') out[`flag.${name}`] = value;
  }
  return out;
}

/** A time argument: ISO-8601 text or Unix seconds; sent to Prometheus as Unix seconds. */
function timeArg(raw: unknown, name: string): string {
  let ms: number;
  if (typeof raw === 'number') ms = raw * 1000;
  else if (typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw)) ms = Number(raw) * 1000;
  else if (typeof raw === 'string') ms = Date.parse(raw);
  else throw new Error(`argument ${name} must be an ISO-8601 time or Unix seconds`);
  if (!Number.isFinite(ms)) throw new Error(`argument ${name} is not a valid time`);
  return String(ms / 1000);
}

function queryArg(args: Readonly<Record<string, unknown>>): string {
  const query = args['query'];
  if (typeof query !== 'string' || query.trim() === '')
    throw new Error('argument query must be a non-empty PromQL expression');
  return query;
}

function matchArg(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (typeof raw === 'string') return raw === '' ? [] : [raw];
  if (Array.isArray(raw) && raw.every((m) => typeof m === 'string')) return raw;
  throw new Error('argument match must be a series selector or a list of them');
}

function createPrometheusClient(settings: ResolvedSettings): ConnectorClient {
  const http = createHttpApi(settings, 'Prometheus');
  async function api(
    path: string,
    params: URLSearchParams | null,
    method: 'GET' | 'POST',
    what: string,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { status, body } = await http.fetchText(path, params, method, what, signal);
    return unwrap(status, body, what);
  }

  async function query(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const q = queryArg(args);
    const what = `prometheus query ${JSON.stringify(clip(q))}`;
    const params = new URLSearchParams({ query: q });
    if (args['time'] !== undefined) params.set('time', timeArg(args['time'], 'time'));
    return parseInstant(await api('/api/v1/query', params, 'POST', what, signal), what);
  }

  async function rangeQuery(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const q = queryArg(args);
    const what = `prometheus range query ${JSON.stringify(clip(q))}`;
    const start = timeArg(args['start'], 'start');
    const end = timeArg(args['end'], 'end');
    const step = args['step_s'];
    if (typeof step !== 'number' || !Number.isFinite(step) || step <= 0)
      throw new Error('argument step_s must be a positive number of seconds');
    const span = Number(end) - Number(start);
    if (span < 0) throw new Error('argument end is before start');
    if (span / step + 1 > MAX_RANGE_POINTS)
      throw new Error(
        `range of ${String(span)} s at step ${String(step)} s exceeds ${String(MAX_RANGE_POINTS)} points; use a larger step_s`,
      );
    const params = new URLSearchParams({ query: q, start, end, step: String(step) });
    return parseRange(await api('/api/v1/query_range', params, 'POST', what, signal), what);
  }

  async function targets(signal: AbortSignal) {
    const what = 'prometheus targets';
    const params = new URLSearchParams({ state: 'active' });
    return parseTargets(await api('/api/v1/targets', params, 'GET', what, signal), what);
  }

  async function labels(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const name = args['name'];
    const params = new URLSearchParams();
    for (const m of matchArg(args['match'])) params.append('match[]', m);
    if (name === undefined) {
      const what = 'prometheus label names';
      return parseStringList(await api('/api/v1/labels', params, 'GET', what, signal), what);
    }
    if (typeof name !== 'string' || !LABEL_NAME.test(name))
      throw new Error('argument name must be a label name');
    const what = `prometheus values of label ${name}`;
    return parseStringList(
      await api(`/api/v1/label/${name}/values`, params, 'GET', what, signal),
      what,
    );
  }

  async function alerts(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const what = 'prometheus alerts';
    const includePending = args['include_pending'] === true;
    return parseAlerts(
      await api('/api/v1/alerts', null, 'GET', what, signal),
      what,
      includePending,
    );
  }

  /**
   * Facts for what-changed snapshots: the version, a SHA-256 of the loaded configuration
   * (whole and per top-level section; Prometheus prints secrets as <secret>, and only hashes
   * leave here anyway), one hash per rule group, and the flags of SETUP_FLAGS.
   */
  async function setup(signal: AbortSignal): Promise<{ facts: SetupFacts }> {
    const [info, config, flags, rules] = await Promise.all([
      api('/api/v1/status/buildinfo', null, 'GET', 'prometheus buildinfo', signal),
      api('/api/v1/status/config', null, 'GET', 'prometheus config', signal),
      api('/api/v1/status/flags', null, 'GET', 'prometheus flags', signal),
      api('/api/v1/rules', null, 'GET', 'prometheus rules', signal),
    ]);
    const { version } = parseBuildInfo(info, 'prometheus buildinfo');
    const yaml = asRecord(config)['yaml'];
    if (typeof yaml !== 'string') throw new Error('prometheus config: malformed answer: no yaml');
    const facts: SetupFacts = { version, config_sha256: sha256(yaml) };
    for (const [section, hash] of Object.entries(yamlSectionHashes(yaml)))
      facts[`config.${section}`] = hash;
    return { facts: { ...facts, ...ruleGroupFacts(rules), ...flagFacts(flags) } };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    const what = 'prometheus health';
    const info = await http.fetchText('/api/v1/status/buildinfo', null, 'GET', what, signal);
    if (info.status === 200) {
      try {
        const { version } = parseBuildInfo(unwrap(info.status, info.body, what), what);
        const ms = elapsedMs(started);
        return { ok: true, detail: `Prometheus ${version}, ${String(ms)} ms`, duration_ms: ms };
      } catch (err) {
        const ms = elapsedMs(started);
        return { ok: false, detail: (err as Error).message, duration_ms: ms };
      }
    }
    if (info.status === 404 || info.status === 405) {
      // Not every Prometheus-compatible server has buildinfo; readiness is enough.
      const ready = await http.fetchText('/-/ready', null, 'GET', what, signal);
      const ms = elapsedMs(started);
      return ready.status === 200
        ? { ok: true, detail: `Prometheus ready, ${String(ms)} ms`, duration_ms: ms }
        : {
            ok: false,
            detail: `HTTP ${String(ready.status)} from /-/ready in ${String(ms)} ms`,
            duration_ms: ms,
          };
    }
    const ms = elapsedMs(started);
    const hint =
      info.status === 401 || info.status === 403
        ? ': check bearer_token or basic_user/basic_password'
        : '';
    return {
      ok: false,
      detail: `HTTP ${String(info.status)} from /api/v1/status/buildinfo in ${String(ms)} ms${hint}`,
      duration_ms: ms,
    };
  }

  return {
    health,
    async call(op, args, signal) {
      switch (op) {
        case 'query':
          return query(args, signal);
        case 'range_query':
          return rangeQuery(args, signal);
        case 'targets':
          return targets(signal);
        case 'labels':
          return labels(args, signal);
        case 'alerts':
          return alerts(args, signal);
        case 'setup':
          return setup(signal);
        default:
          throw new Error(`prometheus has no operation ${JSON.stringify(op)}`);
      }
    },
  };
}

export const prometheusKind: ConnectorKind = {
  kind: 'prometheus',
  title: 'Prometheus',
  description:
    'PromQL instant and range queries, scrape targets for discovery, firing alerts, and its setup (version, configuration and rule hashes, flags) for what-changed snapshots, from a Prometheus server (HTTP API v1).',
  capabilities: ['query', 'discover', 'poll_alerts'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description:
        'Base URL of Prometheus, e.g. http://prometheus:9090 (include a path prefix if it is served under one).',
    },
    ...AUTH_SETTINGS,
  ],
  operations: OPERATIONS,
  create: createPrometheusClient,
};
