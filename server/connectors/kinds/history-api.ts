// What the four history kinds (PagerDuty, Opsgenie, Jira Service Management, ServiceNow)
// share: a JSON API at a base URL, an Authorization header built per request so the secret
// is revealed only into it, bounded bodies, redirects refused (credentials never travel to
// another address), answers a person can act on for 401/403/429, and the one operation
// lookback calls, `resolved_count` over a window. Every call is a read.
import type { ConnectorClient, HealthResult, ResolvedSettings } from '../kind.js';
import { MAX_RESPONSE_BYTES } from './http-api.js';
import { elapsedMs, networkErrorText, readBodyLimited, readUrl } from './settings.js';

/** The operation every history kind has: resolved incidents in [since, until), counted. */
export const RESOLVED_COUNT = 'resolved_count';

export interface Window {
  readonly since: Date;
  readonly until: Date;
}

/** What `resolved_count` answers: a count, never the incidents themselves. */
export interface ResolvedCount {
  readonly count: number;
  /** how it was counted, e.g. "GET /incidents total=true, 2 windows" */
  readonly detail: string;
}

export class HistoryApiError extends Error {
  override readonly name = 'HistoryApiError';
  /** the vendor's HTTP status; null when it could not be reached */
  readonly status: number | null;
  constructor(message: string, status: number | null) {
    super(message);
    this.status = status;
  }
}

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/** The window of a `resolved_count` call: ISO-8601 `since` before `until`. */
export function parseWindow(args: Readonly<Record<string, unknown>>): Window {
  const read = (name: string): Date => {
    const v = args[name];
    const d = typeof v === 'string' ? new Date(v) : null;
    if (d === null || Number.isNaN(d.getTime()))
      throw new Error(`${RESOLVED_COUNT}: ${name} must be an ISO-8601 time`);
    return d;
  };
  const since = read('since');
  const until = read('until');
  if (since.getTime() >= until.getTime())
    throw new Error(`${RESOLVED_COUNT}: since must be before until`);
  return { since, until };
}

/** Why a vendor refused, in words an operator can act on (the body, clipped, for the rest). */
function refusal(product: string, status: number, body: string, credential: string): string {
  if (status === 401)
    return `${product} refused the credential (HTTP 401): check ${credential}, it is wrong, expired or revoked`;
  if (status === 403)
    return `${product} refused access (HTTP 403): ${credential} may not read this; give it read access`;
  if (status === 429) return `${product} is rate limiting (HTTP 429): try again later`;
  const text = body.replace(/\s+/g, ' ').trim();
  return `${product} answered HTTP ${String(status)}${text === '' ? '' : `: ${clip(text, 200)}`}`;
}

export interface JsonApiOptions {
  readonly product: string;
  /** the setting(s) that hold the credential, named in a 401 */
  readonly credential: string;
  /** headers with the credential, built per request */
  readonly headers: () => Record<string, string>;
}

export interface JsonApi {
  readonly origin: string;
  /** GET (or POST with a JSON body) and parse the answer; a status ≥ 300 throws. */
  json(
    path: string,
    query: URLSearchParams | null,
    signal: AbortSignal,
    body?: unknown,
  ): Promise<unknown>;
}

export function createJsonApi(settings: ResolvedSettings, options: JsonApiOptions): JsonApi {
  const base = readUrl(settings, 'url');
  const root = base.href.replace(/\/+$/, '');
  const { product } = options;
  return {
    origin: base.origin,
    async json(path, query, signal, body) {
      let url = `${root}${path}`;
      if (query !== null && query.size > 0) url += `?${query.toString()}`;
      const headers: Record<string, string> = { accept: 'application/json', ...options.headers() };
      const init: RequestInit = { method: 'GET', signal, redirect: 'manual', headers };
      if (body !== undefined) {
        init.method = 'POST';
        headers['content-type'] = 'application/json';
        init.body = JSON.stringify(body);
      }
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, init);
        text = await readBodyLimited(res, MAX_RESPONSE_BYTES, product);
      } catch (err) {
        signal.throwIfAborted();
        if (err instanceof Error && err.message.startsWith(product)) throw err;
        throw new HistoryApiError(
          `cannot reach ${product} at ${base.origin}: ${networkErrorText(err)}`,
          null,
        );
      }
      if (res.status >= 300 && res.status < 400)
        throw new HistoryApiError(
          `${product} at ${base.origin} redirects (HTTP ${String(res.status)}); set url to the final address`,
          res.status,
        );
      if (res.status >= 400)
        throw new HistoryApiError(
          refusal(product, res.status, text, options.credential),
          res.status,
        );
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new HistoryApiError(`${product} answered something that is not JSON`, res.status);
      }
    },
  };
}

/** A field of a parsed answer, by path, or undefined. */
export function pick(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A non-negative integer count the vendor answered (ServiceNow sends it as a string). */
export function countOf(v: unknown, product: string, field: string): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new HistoryApiError(`${product} answered without a count in ${field}`, 200);
  return n;
}

/**
 * A client with health (one cheap read, described by `describe`) and `resolved_count`.
 * A refusal or a network failure is a failed health, not a throw, so the detail says why.
 */
export function historyClient(
  kind: string,
  health: (signal: AbortSignal) => Promise<string>,
  count: (window: Window, signal: AbortSignal) => Promise<ResolvedCount>,
): ConnectorClient {
  return {
    async health(signal): Promise<HealthResult> {
      const started = performance.now();
      try {
        const detail = await health(signal);
        return { ok: true, detail, duration_ms: elapsedMs(started) };
      } catch (err) {
        signal.throwIfAborted();
        const detail = err instanceof Error ? err.message : String(err);
        return { ok: false, detail, duration_ms: elapsedMs(started) };
      }
    },
    async call(op, args, signal) {
      if (op !== RESOLVED_COUNT) throw new Error(`${kind} has no operation ${JSON.stringify(op)}`);
      return count(parseWindow(args), signal);
    },
  };
}

/** Refuse a header value with a line break or NUL (the HTTP client would quote it whole). */
export function headerSafe(value: string, name: string): string {
  if (/[\r\n\0]/.test(value))
    throw new Error(`${name} holds a line break or NUL, which a header cannot carry`);
  return value;
}
