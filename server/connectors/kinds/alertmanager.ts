// The alertmanager connector kind: alerts (for the poller to turn into signals), silences,
// status and its setup (what-changed snapshots) over Alertmanager's HTTP API v2. Uses
// global fetch with the caller's AbortSignal; bodies are bounded; redirects are not
// followed (so credentials never travel to another address). Read-only: it creates no
// silences.
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import { parseAlerts, parseSilences, parseStatus, unwrap } from './alertmanager.parse.js';
import { elapsedMs } from './settings.js';
import { AUTH_SETTINGS, createHttpApi } from './http-api.js';
import { sha256, yamlSectionHashes, type SetupFacts } from './setup-facts.js';

const MAX_FILTERS = 50;
const MAX_FILTER_LENGTH = 1000;

const OPERATIONS = ['alerts', 'silences', 'status', 'setup'] as const;

/**
 * Setup facts from GET /api/v2/status: the version, and a SHA-256 of the loaded
 * configuration, whole and per top-level section (route, receivers, …). The configuration
 * text holds receivers' credentials, so only its hashes leave here.
 */
export function setupFacts(data: unknown, what: string): SetupFacts {
  const { version } = parseStatus(data, what);
  const config = (data as { config?: { original?: unknown } }).config?.original;
  if (typeof config !== 'string') throw new Error(`${what}: malformed answer: no config`);
  const facts: SetupFacts = { version, config_sha256: sha256(config) };
  for (const [section, hash] of Object.entries(yamlSectionHashes(config)))
    facts[`config.${section}`] = hash;
  return facts;
}

function booleanArg(args: Readonly<Record<string, unknown>>, name: string, fallback: boolean) {
  const raw = args[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'boolean') throw new Error(`argument ${name} must be true or false`);
  return raw;
}

/** Matchers such as `severity="critical"` or `alertname=~"Disk.*"`, as Alertmanager reads them. */
function filterArg(raw: unknown): string[] {
  if (raw === undefined) return [];
  const list: unknown[] = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : [null];
  if (list.length > MAX_FILTERS)
    throw new Error(`argument filter takes at most ${String(MAX_FILTERS)} matchers`);
  return list.map((m) => {
    if (
      typeof m !== 'string' ||
      m.trim() === '' ||
      m.length > MAX_FILTER_LENGTH ||
      /[\r\n\0]/.test(m)
    )
      throw new Error('argument filter must be a list of matchers such as severity="critical"');
    return m;
  });
}

function createAlertmanagerClient(settings: ResolvedSettings): ConnectorClient {
  const http = createHttpApi(settings, 'Alertmanager');
  async function api(
    path: string,
    params: URLSearchParams | null,
    what: string,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { status, body } = await http.fetchText(path, params, 'GET', what, signal);
    return unwrap(status, body, what);
  }

  async function alerts(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const what = 'alertmanager alerts';
    const params = new URLSearchParams({
      active: String(booleanArg(args, 'active', true)),
      silenced: String(booleanArg(args, 'silenced', false)),
      inhibited: String(booleanArg(args, 'inhibited', false)),
    });
    for (const m of filterArg(args['filter'])) params.append('filter', m);
    return parseAlerts(await api('/api/v2/alerts', params, what, signal), what);
  }

  async function silences(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const what = 'alertmanager silences';
    const params = new URLSearchParams();
    for (const m of filterArg(args['filter'])) params.append('filter', m);
    return parseSilences(await api('/api/v2/silences', params, what, signal), what);
  }

  async function status(signal: AbortSignal) {
    const what = 'alertmanager status';
    return parseStatus(await api('/api/v2/status', null, what, signal), what);
  }

  async function setup(signal: AbortSignal) {
    const what = 'alertmanager setup';
    return { facts: setupFacts(await api('/api/v2/status', null, what, signal), what) };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    const what = 'alertmanager health';
    const res = await http.fetchText('/api/v2/status', null, 'GET', what, signal);
    const ms = elapsedMs(started);
    if (res.status === 200) {
      try {
        const { version } = parseStatus(unwrap(res.status, res.body, what), what);
        return { ok: true, detail: `Alertmanager ${version}, ${String(ms)} ms`, duration_ms: ms };
      } catch (err) {
        return { ok: false, detail: (err as Error).message, duration_ms: ms };
      }
    }
    const hint =
      res.status === 401 || res.status === 403
        ? ': check bearer_token or basic_user/basic_password'
        : res.status === 404
          ? ': is this Alertmanager 0.16 or later (API v2), with url including any path prefix?'
          : '';
    return {
      ok: false,
      detail: `HTTP ${String(res.status)} from /api/v2/status in ${String(ms)} ms${hint}`,
      duration_ms: ms,
    };
  }

  return {
    health,
    async call(op, args, signal) {
      switch (op) {
        case 'alerts':
          return alerts(args, signal);
        case 'silences':
          return silences(args, signal);
        case 'status':
          return status(signal);
        case 'setup':
          return setup(signal);
        default:
          throw new Error(`alertmanager has no operation ${JSON.stringify(op)}`);
      }
    },
  };
}

export const alertmanagerKind: ConnectorKind = {
  kind: 'alertmanager',
  title: 'Alertmanager',
  description:
    'Alerts (active, silenced, inhibited), silences, status, and its setup (version and configuration hashes) for what-changed snapshots, from a Prometheus Alertmanager (HTTP API v2).',
  capabilities: ['poll_alerts', 'silences'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description:
        'Base URL of Alertmanager, e.g. http://alertmanager:9093 (include a path prefix if it is served under one).',
    },
    ...AUTH_SETTINGS,
  ],
  operations: OPERATIONS,
  create: createAlertmanagerClient,
};
