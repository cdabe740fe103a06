// What the Prometheus and Alertmanager kinds share: the base URL, bearer or basic
// authentication (secrets revealed only into the outgoing header), bounded bodies, and
// redirects refused so credentials never travel to another address.
import type { ResolvedSettings, SettingSpec } from '../kind.js';
import { networkErrorText, readBodyLimited, readSecret, readString, readUrl } from './settings.js';

/** Answers above this many bytes (after decompression) are refused. */
export const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

/** The authentication settings of an HTTP API kind, after its `url`. */
export const AUTH_SETTINGS: readonly SettingSpec[] = [
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
];

export interface Fetched {
  readonly status: number;
  readonly body: string;
}

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}…` : s);

/** A client of one HTTP API; `product` names it in errors ("Prometheus at …"). */
export function createHttpApi(settings: ResolvedSettings, product: string) {
  const base = readUrl(settings, 'url');
  const bearer = readSecret(settings, 'bearer_token');
  const basicUser = readString(settings, 'basic_user');
  const basicPassword = readSecret(settings, 'basic_password');
  if (bearer !== undefined && (basicUser !== undefined || basicPassword !== undefined))
    throw new Error('set either bearer_token or basic_user/basic_password, not both');
  if (basicPassword !== undefined && basicUser === undefined)
    throw new Error('basic_password needs basic_user');
  // A header cannot carry it, and the HTTP client's error would quote the whole value (a
  // basic password is base64-encoded, so it can).
  if (bearer !== undefined && /[\r\n\0]/.test(bearer.reveal()))
    throw new Error('bearer_token holds a line break or NUL, which a header cannot carry');
  const root = base.href.replace(/\/+$/, '');
  const origin = base.origin;

  /** Built per request, so the secret is revealed only into the outgoing header. */
  function headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', ...extra };
    if (bearer !== undefined) h['authorization'] = `Bearer ${bearer.reveal()}`;
    else if (basicUser !== undefined) {
      const pair = `${basicUser}:${basicPassword?.reveal() ?? ''}`;
      h['authorization'] = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    }
    return h;
  }

  return {
    origin,
    /** GET with the params as a query string, or POST them form-encoded. */
    async fetchText(
      path: string,
      params: URLSearchParams | null,
      method: 'GET' | 'POST',
      what: string,
      signal: AbortSignal,
    ): Promise<Fetched> {
      let url = `${root}${path}`;
      const init: RequestInit = { method, signal, redirect: 'manual' };
      if (method === 'POST' && params !== null) {
        init.headers = headers({ 'content-type': 'application/x-www-form-urlencoded' });
        init.body = params.toString();
      } else {
        init.headers = headers();
        if (params !== null && params.size > 0) url += `?${params.toString()}`;
      }
      try {
        const res = await fetch(url, init);
        if (res.status >= 300 && res.status < 400) {
          await res.body?.cancel().catch(() => undefined);
          const to = res.headers.get('location');
          throw new Error(
            `${what}: ${product} at ${origin} redirects (HTTP ${String(res.status)}${to === null ? '' : ` to ${clip(to, 100)}`}); set url to the final address`,
          );
        }
        return { status: res.status, body: await readBodyLimited(res, MAX_RESPONSE_BYTES, what) };
      } catch (err) {
        signal.throwIfAborted();
        if (err instanceof Error && err.message.startsWith(what)) throw err;
        throw new Error(`${what}: cannot reach ${product} at ${origin}: ${networkErrorText(err)}`);
      }
    },
  };
}
