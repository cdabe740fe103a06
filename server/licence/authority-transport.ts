// The one way the service talks to the licence authority: POST a JSON body to
// `${authorityUrl}${path}` and hand back the status and parsed JSON answer, or a typed
// failure (design licence.md §3.6). The answer's own signature is what the caller trusts;
// TLS, the CA bundle and the SPKI pins here protect the channel only.
//
// - Proxy: HTTPS_PROXY unless NO_PROXY names the authority's host, as undici's
//   EnvHttpProxyAgent does, but from the config (never process.env), choosing undici's
//   ProxyAgent (a CONNECT tunnel) or a plain Agent per call.
// - Trust: Node's defaults; SVC_CA_BUNDLE's certificates are added to Node's root
//   certificates, never in place of them.
// - Pins: when set, one certificate of the chain must have a listed SPKI SHA-256; checked in
//   checkServerIdentity, inside the handshake, so a mismatch sends no request byte.
// - A fresh dispatcher per call (checks are hourly): no pooled socket outlives a call and no
//   TLS session is resumed (a resumed session skips checkServerIdentity, hence the pins).
import { createHash, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  checkServerIdentity,
  rootCertificates,
  type DetailedPeerCertificate,
  type PeerCertificate,
} from 'node:tls';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import type { Secret } from '../shared/secret.js';

/** connect 10 s, total 30 s, answers up to 256 KiB (design §3.6). */
export const AUTHORITY_LIMITS = {
  connectTimeoutMs: 10_000,
  totalTimeoutMs: 30_000,
  maxAnswerBytes: 256 * 1024,
} as const;

/** What the transport needs of the config's licence group (authorityUrl made non-null by the caller). */
export interface AuthorityTransportSettings {
  readonly authorityUrl: string;
  /** `sha256/<base64>` SPKI pins; empty: no pinning. */
  readonly authorityPins: readonly string[];
  /** Path of a PEM bundle whose certificates are added to the trusted roots. */
  readonly caBundle: string | null;
  readonly httpsProxy: Secret | null;
  readonly noProxy: string | null;
}

export interface AuthorityCallOptions {
  readonly connectTimeoutMs?: number;
  readonly totalTimeoutMs?: number;
  readonly maxAnswerBytes?: number;
  /** Aborts the call (the service closing); the result is then `timeout`, said to be cancelled. */
  readonly signal?: AbortSignal;
}

export type AuthorityRoute = 'direct' | 'proxy';

export interface AuthorityAnswer {
  readonly ok: true;
  readonly status: number;
  readonly body: unknown;
  readonly via: AuthorityRoute;
}

export type AuthorityFailureResult =
  'unreachable' | 'timeout' | 'tls_error' | 'pin_mismatch' | 'bad_answer';

export interface AuthorityFailure {
  readonly ok: false;
  readonly result: AuthorityFailureResult;
  /** For people: what failed and, where there is one, what to change. */
  readonly detail: string;
  /** pin_mismatch only: the SPKI pins of the chain presented, leaf first. */
  readonly seen?: readonly string[];
  readonly via: AuthorityRoute;
}

export type AuthorityResponse = AuthorityAnswer | AuthorityFailure;

/**
 * `sha256/<base64>` of a certificate's SubjectPublicKeyInfo (RFC 7469, curl's form), from
 * its DER. Computed from `X509Certificate#publicKey`, never from the TLS peer certificate's
 * `pubkey`, which for EC keys is the bare point and gives a pin nobody else computes.
 */
export function spkiPinOf(der: Buffer): string {
  const spki = new X509Certificate(der).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256/${createHash('sha256').update(spki).digest('base64')}`;
}

/** The pins of the chain as TLS built it, leaf first (the root once, though it names itself). */
export function chainPins(cert: PeerCertificate): string[] {
  const pins: string[] = [];
  const seen = new Set<string>();
  let c: PeerCertificate | undefined = cert;
  while (c !== undefined && pins.length < 16 && !seen.has(c.fingerprint256)) {
    seen.add(c.fingerprint256);
    pins.push(spkiPinOf(c.raw));
    c = 'issuerCertificate' in c ? (c as DetailedPeerCertificate).issuerCertificate : undefined;
  }
  return pins;
}

/**
 * Whether NO_PROXY sends `target` around the proxy, read as undici's EnvHttpProxyAgent reads
 * it: entries split on commas and spaces; `*` for every host; `host`, `.domain` or
 * `*.domain` for the host and its subdomains; `host:port` (or `[v6]:port`) for one port.
 */
export function bypassesProxy(target: URL, noProxy: string | null): boolean {
  if (noProxy === null) return false;
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  for (const raw of noProxy.toLowerCase().split(/[,\s]+/)) {
    if (raw === '') continue;
    if (raw === '*') return true;
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw) ?? /^([^:]+):(\d+)$/.exec(raw);
    const name = (m === null ? raw : (m[1] ?? '')).replace(/^\*?\./, '');
    const entryPort = m?.[2] === undefined ? 0 : Number(m[2]);
    if (name === '' || (entryPort !== 0 && entryPort !== port)) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** Node's root certificates plus the bundle's; a reason when the bundle is unusable. */
export async function trustedRoots(caBundle: string): Promise<string[] | { problem: string }> {
  let text: string;
  try {
    text = await readFile(caBundle, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return { problem: `SVC_CA_BUNDLE ${caBundle} cannot be read (${code})` };
  }
  const pems = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  for (const pem of pems) {
    try {
      new X509Certificate(pem);
    } catch {
      return { problem: `SVC_CA_BUNDLE ${caBundle} holds a certificate that does not parse` };
    }
  }
  if (pems.length === 0)
    return { problem: `SVC_CA_BUNDLE ${caBundle} holds no PEM certificate (BEGIN CERTIFICATE)` };
  return [...rootCertificates, ...pems];
}

/** The proxy's address for messages: the password (and user) left out. */
function shownProxy(proxy: string): string {
  try {
    return new URL(proxy).origin;
  } catch {
    return '(the proxy)';
  }
}

const seconds = (ms: number): string => `${String(ms / 1000)} s`;

/**
 * POSTs `body` as JSON to `${authorityUrl}${path}`. Never throws: every way the exchange can
 * fail is a typed failure. A JSON answer is returned whatever its status.
 */
export async function postToAuthority(
  settings: AuthorityTransportSettings,
  path: string,
  body: unknown,
  options: AuthorityCallOptions = {},
): Promise<AuthorityResponse> {
  const connectTimeoutMs = options.connectTimeoutMs ?? AUTHORITY_LIMITS.connectTimeoutMs;
  const totalTimeoutMs = options.totalTimeoutMs ?? AUTHORITY_LIMITS.totalTimeoutMs;
  const maxAnswerBytes = options.maxAnswerBytes ?? AUTHORITY_LIMITS.maxAnswerBytes;
  const url = `${settings.authorityUrl.replace(/\/+$/, '')}${path}`;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, result: 'unreachable', detail: `${url} is not a URL`, via: 'direct' };
  }
  const https = target.protocol === 'https:';
  const proxy = https ? (settings.httpsProxy?.reveal() ?? null) : null;
  const via: AuthorityRoute =
    proxy !== null && !bypassesProxy(target, settings.noProxy) ? 'proxy' : 'direct';
  const where = `${target.host}${via === 'proxy' && proxy !== null ? ` via the proxy ${shownProxy(proxy)}` : ''}`;
  const fail = (result: AuthorityFailureResult, detail: string): AuthorityFailure => ({
    ok: false,
    result,
    detail,
    via,
  });

  const pins = settings.authorityPins;
  if (pins.length > 0 && !https) {
    return fail(
      'tls_error',
      `SVC_AUTHORITY_PINS is set but SVC_AUTHORITY_URL is not https:// (${target.origin}): pins need TLS; nothing was sent`,
    );
  }
  let ca: string[] | undefined;
  if (settings.caBundle !== null && https) {
    const roots = await trustedRoots(settings.caBundle);
    if (!Array.isArray(roots)) return fail('tls_error', `${roots.problem}; nothing was sent`);
    ca = roots;
  }

  let mismatch: string[] | null = null;
  const checkIdentity = (host: string, cert: PeerCertificate): Error | undefined => {
    const wrongName = checkServerIdentity(host, cert);
    if (wrongName !== undefined) return wrongName;
    const seen = chainPins(cert);
    if (seen.some((p) => pins.includes(p))) return undefined;
    mismatch = seen;
    return new Error('no certificate of the chain matches SVC_AUTHORITY_PINS');
  };
  const tls = {
    timeout: connectTimeoutMs,
    maxCachedSessions: 0,
    ...(ca === undefined ? {} : { ca }),
    ...(pins.length > 0 ? { checkServerIdentity: checkIdentity } : {}),
  };
  const timeouts = { headersTimeout: totalTimeoutMs, bodyTimeout: totalTimeoutMs };
  const dispatcher: Dispatcher =
    via === 'proxy' && proxy !== null
      ? new ProxyAgent({
          uri: proxy,
          requestTls: tls,
          proxyTls: { timeout: connectTimeoutMs, ...(ca === undefined ? {} : { ca }) },
          ...timeouts,
        })
      : new Agent({ connect: tls, ...timeouts });

  const controller = new AbortController();
  let timedOut = false;
  let cancelled = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, totalTimeoutMs);
  const onCancel = () => {
    cancelled = true;
    controller.abort();
  };
  if (options.signal?.aborted === true) onCancel();
  options.signal?.addEventListener('abort', onCancel, { once: true });

  try {
    const res = await request(target, {
      method: 'POST',
      dispatcher,
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const tooBig = fail(
      'bad_answer',
      `the authority's answer (${String(res.statusCode)}) is larger than ${String(maxAnswerBytes / 1024)} KiB`,
    );
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (declared > maxAnswerBytes) {
      res.body.destroy();
      return tooBig;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > maxAnswerBytes) return tooBig;
      chunks.push(b);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      return { ok: true, status: res.statusCode, body: JSON.parse(text) as unknown, via };
    } catch {
      const type = String(res.headers['content-type'] ?? 'no content-type');
      const start = JSON.stringify(text.slice(0, 80));
      return fail(
        'bad_answer',
        text === ''
          ? `the authority answered ${String(res.statusCode)} with an empty body, not JSON`
          : `the authority answered ${String(res.statusCode)} with something that is not JSON (${type}: ${start})`,
      );
    }
  } catch (err) {
    if (mismatch !== null) {
      const seen: string[] = mismatch;
      return {
        ...fail(
          'pin_mismatch',
          `no certificate presented by ${where} matches SVC_AUTHORITY_PINS; seen: ${seen.join(', ')} (behind a TLS-inspecting proxy, pin its CA or unset the pins)`,
        ),
        seen,
      };
    }
    if (cancelled) return fail('timeout', `cancelled before ${where} answered`);
    if (timedOut)
      return fail('timeout', `no answer from ${where} within ${seconds(totalTimeoutMs)}`);
    return classify(err, {
      where,
      host: target.host,
      proxy,
      connectTimeoutMs,
      totalTimeoutMs,
      fail,
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
    await dispatcher.destroy().catch(() => undefined);
  }
}

/** OpenSSL's verdicts on a chain the trusted roots do not vouch for. */
const UNTRUSTED = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'CERT_SIGNATURE_FAILURE',
]);

interface ErrorLink {
  readonly code: string;
  readonly message: string;
}

/** The error and its causes (undici wraps socket and TLS errors), outermost first. */
function chainOf(err: unknown): ErrorLink[] {
  const out: ErrorLink[] = [];
  let e: unknown = err;
  while (e instanceof Error && out.length < 8) {
    const code = (e as NodeJS.ErrnoException).code;
    out.push({ code: typeof code === 'string' ? code : '', message: e.message });
    e = e.cause;
  }
  return out;
}

function classify(
  err: unknown,
  ctx: {
    where: string;
    host: string;
    proxy: string | null;
    connectTimeoutMs: number;
    totalTimeoutMs: number;
    fail: (result: AuthorityFailureResult, detail: string) => AuthorityFailure;
  },
): AuthorityFailure {
  const links = chainOf(err);
  const has = (test: (code: string) => boolean) => links.find((l) => test(l.code));
  // OpenSSL's messages carry an error queue and a source path; its reason is what reads.
  const reason = (m: string) => /:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+)/.exec(m)?.[1] ?? m.trim();
  const said = (l: ErrorLink) =>
    l.code === '' ? reason(l.message) : `${l.code}: ${reason(l.message)}`;
  const { where, fail } = ctx;

  if (has((c) => c === 'UND_ERR_CONNECT_TIMEOUT') !== undefined)
    return fail('timeout', `could not connect to ${where} within ${seconds(ctx.connectTimeoutMs)}`);
  if (has((c) => c === 'UND_ERR_HEADERS_TIMEOUT' || c === 'UND_ERR_BODY_TIMEOUT') !== undefined)
    return fail('timeout', `no answer from ${where} within ${seconds(ctx.totalTimeoutMs)}`);

  const untrusted = has((c) => UNTRUSTED.has(c));
  if (untrusted !== undefined)
    return fail(
      'tls_error',
      `the certificate presented by ${where} is not trusted (${said(untrusted)}); if a TLS-inspecting proxy is in the way, it presents certificates of its own CA: add that CA to SVC_CA_BUNDLE`,
    );
  const name = has((c) => c === 'ERR_TLS_CERT_ALTNAME_INVALID' || c === 'HOSTNAME_MISMATCH');
  if (name !== undefined)
    return fail(
      'tls_error',
      `the certificate presented by ${where} is for another name (${said(name)})`,
    );
  const dates = has((c) => c === 'CERT_HAS_EXPIRED' || c === 'CERT_NOT_YET_VALID');
  if (dates !== undefined)
    return fail(
      'tls_error',
      `the certificate presented by ${where} is outside its dates (${said(dates)}); check this host's clock`,
    );
  const tls = has(
    (c) => /^(ERR_SSL_|ERR_TLS_|EPROTO$|UND_ERR_PRX_TLS$)/.test(c) || c.includes('CERT'),
  );
  if (tls !== undefined) return fail('tls_error', `TLS with ${where} failed (${said(tls)})`);

  const first = links[0] ?? { code: '', message: String(err) };
  const refused = links.find((l) => /Proxy response \(\d+\)/.test(l.message));
  if (refused !== undefined && ctx.proxy !== null)
    return fail(
      'unreachable',
      `the proxy ${shownProxy(ctx.proxy)} refused the tunnel to ${ctx.host} (${refused.message})`,
    );
  return fail('unreachable', `could not reach ${where} (${said(first)})`);
}
