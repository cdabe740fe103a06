// The alertmanager connector kind: alerts (for the poller to turn into signals), silences and
// status over Alertmanager's HTTP API v2. Uses global fetch with the caller's AbortSignal;
// bodies are bounded; redirects are not followed (so credentials never travel to another
// address). Read-only: it creates no silences.
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import { clip, parseAlerts, parseSilences, parseStatus, unwrap } from './alertmanager.parse.js';
import {
  elapsedMs,
  networkErrorText,
  readBodyLimited,
  readSecret,
  readString,
  readUrl,
} from './settings.js';

/** Answers above this many bytes (after decompression) are refused. */
export const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;
const MAX_FILTERS = 50;
const MAX_FILTER_LENGTH = 1000;

const OPERATIONS = ['alerts', 'silences', 'status'] as const;

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

interface Fetched {
  readonly status: number;
  readonly body: string;
}

function createAlertmanagerClient(settings: ResolvedSettings): ConnectorClient {
  const base = readUrl(settings, 'url');
  const bearer = readSecret(settings, 'bearer_token');
  const basicUser = readString(settings, 'basic_user');
  const basicPassword = readSecret(settings, 'basic_password');
  if (bearer !== undefined && (basicUser !== undefined || basicPassword !== undefined))
    throw new Error('set either bearer_token or basic_user/basic_password, not both');
  if (basicPassword !== undefined && basicUser === undefined)
    throw new Error('basic_password needs basic_user');
  const root = base.href.replace(/\/+$/, '');
  const origin = base.origin;

  /** Built per request, so the secret is revealed only into the outgoing header. */
  function headers(): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json' };
    if (bearer !== undefined) h['authorization'] = `Bearer ${bearer.reveal()}`;
    else if (basicUser !== undefined) {
      const pair = `${basicUser}:${basicPassword?.reveal() ?? ''}`;
      h['authorization'] = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    }
    return h;
  }

  async function fetchText(
    path: string,
    params: URLSearchParams | null,
    what: string,
    signal: AbortSignal,
  ): Promise<Fetched> {
    let url = `${root}${path}`;
    if (params !== null && params.size > 0) url += `?${params.toString()}`;
    try {
      const res = await fetch(url, {
        method: 'GET',
        headers: headers(),
        signal,
        redirect: 'manual',
      });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel().catch(() => undefined);
        const to = res.headers.get('location');
        throw new Error(
          `${what}: Alertmanager at ${origin} redirects (HTTP ${String(res.status)}${to === null ? '' : ` to ${clip(to, 100)}`}); set url to the final address`,
        );
      }
      return { status: res.status, body: await readBodyLimited(res, MAX_RESPONSE_BYTES, what) };
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof Error && err.message.startsWith(what)) throw err;
      throw new Error(`${what}: cannot reach Alertmanager at ${origin}: ${networkErrorText(err)}`);
    }
  }

  async function api(
    path: string,
    params: URLSearchParams | null,
    what: string,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { status, body } = await fetchText(path, params, what, signal);
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

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    const what = 'alertmanager health';
    const res = await fetchText('/api/v2/status', null, what, signal);
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
    'Alerts (active, silenced, inhibited), silences and status from a Prometheus Alertmanager (HTTP API v2).',
  capabilities: ['poll_alerts', 'silences'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description:
        'Base URL of Alertmanager, e.g. http://alertmanager:9093 (include a path prefix if it is served under one).',
    },
    {
      name: 'bearer_token',
      type: 'secret',
      required: false,
      description: 'Bearer token sent as Authorization (e.g. behind an authenticating proxy).',
    },
    {
      name: 'basic_user',
      type: 'string',
      required: false,
      description: 'User name for HTTP basic authentication (with basic_password).',
    },
    {
      name: 'basic_password',
      type: 'secret',
      required: false,
      description: 'Password for HTTP basic authentication.',
    },
  ],
  operations: OPERATIONS,
  create: createAlertmanagerClient,
};
