// The http connector kind: probes one URL for status, latency and TLS certificate expiry,
// and reads its setup (status, server header, certificate) for what-changed snapshots.
// Uses node:http/node:https (not fetch) to read the peer certificate. The only timeout is
// the caller's AbortSignal. Redirects are not followed: a 301 is the status the probe sees.
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { type PeerCertificate, type TLSSocket } from 'node:tls';
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import {
  elapsedMs,
  networkErrorText,
  readBoolean,
  readInteger,
  readSecret,
  readString,
  readStringList,
  readUrl,
  readCaFile,
} from './settings.js';

export interface TlsInfo {
  /** ISO-8601 UTC end of the certificate's validity */
  readonly valid_to: string;
  /** whole days until valid_to; negative once expired */
  readonly days_left: number;
  readonly issuer: string;
  readonly subject: string;
}

export interface ProbeResult {
  /** HTTP status, or null when no answer came (refused, TLS failure, reset) */
  readonly status: number | null;
  /** status equals expect_status */
  readonly ok: boolean;
  /** until the response headers arrived, or until the failure */
  readonly duration_ms: number;
  /** the server's certificate on https, else null */
  readonly tls: TlsInfo | null;
  /** why no answer came; null when one did (whatever its status) */
  readonly error: string | null;
}

interface Exchange {
  readonly result: ProbeResult;
  /** the Server header, if any */
  readonly server: string | null;
  /** the certificate's SHA-256 fingerprint (AA:BB:…) on https */
  readonly fingerprint: string | null;
}

const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST'] as const;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DAY_MS = 86_400_000;

/** "Name: value" lines to headers; refuses malformed lines without echoing their values. */
export function parseHeaderLines(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  lines.forEach((line, i) => {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    const value = colon > 0 ? line.slice(colon + 1).trim() : '';
    if (!HEADER_NAME.test(name) || /[\r\n\0]/.test(value))
      throw new Error(`setting headers: line ${String(i + 1)} is not "Name: value"`);
    headers[name.toLowerCase()] = value;
  });
  return headers;
}

function distinguishedName(name: PeerCertificate['subject'] | undefined): string {
  if (name === undefined || name === null) return '';
  return Object.entries(name as unknown as Record<string, string | string[]>)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
}

export function tlsInfoOf(cert: PeerCertificate, now: number): TlsInfo | null {
  if (typeof cert.valid_to !== 'string' || cert.valid_to === '') return null;
  const validTo = Date.parse(cert.valid_to);
  if (Number.isNaN(validTo)) return null;
  return {
    valid_to: new Date(validTo).toISOString(),
    days_left: Math.floor((validTo - now) / DAY_MS),
    issuer: distinguishedName(cert.issuer),
    subject: distinguishedName(cert.subject),
  };
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

function createHttpClient(settings: ResolvedSettings): ConnectorClient {
  const url = readUrl(settings, 'url');
  const method = (readString(settings, 'method') ?? 'GET').toUpperCase();
  if (!(METHODS as readonly string[]).includes(method))
    throw new Error(`setting method must be one of ${METHODS.join(', ')}`);
  const expectStatus = readInteger(settings, 'expect_status', 200, 100, 599);
  const extraHeaders = parseHeaderLines(readStringList(settings, 'headers'));
  const bearer = readSecret(settings, 'bearer_token');
  if (bearer !== undefined && 'authorization' in extraHeaders)
    throw new Error('set bearer_token or an Authorization line in headers, not both');
  const insecure = readBoolean(settings, 'insecure_skip_verify', false);
  const isHttps = url.protocol === 'https:';
  const ca = readCaFile(settings);

  /** One request: the probe's result, plus what only setup reports. */
  function exchange(signal: AbortSignal): Promise<Exchange> {
    signal.throwIfAborted();
    return new Promise<Exchange>((resolve, reject) => {
      const started = performance.now();
      // Built per request, so the secret is revealed only into the outgoing header.
      const headers: OutgoingHttpHeaders = { 'user-agent': 'svc-probe', ...extraHeaders };
      if (bearer !== undefined) headers['authorization'] = `Bearer ${bearer.reveal()}`;
      const options: RequestOptions = { method, headers, signal, agent: false };
      if (isHttps) options.rejectUnauthorized = !insecure;
      if (isHttps && ca !== undefined) options.ca = ca;
      const req = (isHttps ? httpsRequest : httpRequest)(url, options, (res) => {
        const duration = elapsedMs(started);
        const cert = isHttps ? (res.socket as TLSSocket).getPeerCertificate() : null;
        const tls = cert === null ? null : tlsInfoOf(cert, Date.now());
        const status = res.statusCode ?? 0;
        const server = res.headers['server'];
        // The body is not needed; drop the connection (agent: false, nothing to reuse).
        res.destroy();
        resolve({
          result: { status, ok: status === expectStatus, duration_ms: duration, tls, error: null },
          server: typeof server === 'string' ? server : null,
          fingerprint:
            typeof cert?.fingerprint256 === 'string' && cert.fingerprint256 !== ''
              ? cert.fingerprint256
              : null,
        });
      });
      req.on('error', (err) => {
        if (signal.aborted) {
          reject(abortReason(signal));
          return;
        }
        resolve({
          result: {
            status: null,
            ok: false,
            duration_ms: elapsedMs(started),
            tls: null,
            error: networkErrorText(err),
          },
          server: null,
          fingerprint: null,
        });
      });
      if (method === 'POST') req.setHeader('content-length', '0');
      req.end();
    });
  }

  const probe = async (signal: AbortSignal): Promise<ProbeResult> =>
    (await exchange(signal)).result;

  /**
   * Facts for what-changed snapshots: the status the URL answers (redirects are not
   * followed, so a new redirect shows as a new status), its Server header, and on https the
   * certificate's SHA-256 fingerprint, end of validity and issuer. No answer is a failed read.
   */
  async function setup(signal: AbortSignal): Promise<{ facts: Record<string, string> }> {
    const { result, server, fingerprint } = await exchange(signal);
    if (result.error !== null || result.status === null)
      throw new Error(`http setup of ${url.origin} failed: ${result.error ?? 'no answer'}`);
    const facts: Record<string, string> = { status: String(result.status) };
    if (server !== null) facts['server'] = server;
    if (fingerprint !== null) facts['tls.fingerprint_sha256'] = fingerprint;
    if (result.tls !== null) {
      facts['tls.not_after'] = result.tls.valid_to;
      facts['tls.issuer'] = result.tls.issuer;
    }
    return { facts };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const result = await probe(signal);
    if (result.error !== null || result.status === null)
      throw new Error(`http probe of ${url.origin} failed: ${result.error ?? 'no answer'}`);
    const expiry =
      result.tls === null
        ? ''
        : result.tls.days_left < 0
          ? `, certificate expired ${String(-result.tls.days_left)} days ago`
          : `, certificate expires in ${String(result.tls.days_left)} days`;
    const expected = result.ok ? '' : `, expected ${String(expectStatus)}`;
    return {
      ok: result.ok,
      detail: `HTTP ${String(result.status)} in ${String(result.duration_ms)} ms${expected}${expiry}`,
      duration_ms: result.duration_ms,
    };
  }

  return {
    health,
    async call(op, _args, signal) {
      if (op === 'probe') return probe(signal);
      if (op === 'setup') return setup(signal);
      throw new Error(`http has no operation ${JSON.stringify(op)}`);
    },
  };
}

export const httpKind: ConnectorKind = {
  kind: 'http',
  title: 'HTTP probe',
  description:
    'Probes one URL: HTTP status against the expected one, time to the response headers, and TLS certificate expiry on https.',
  capabilities: ['probe'],
  settings: [
    {
      name: 'url',
      type: 'url',
      required: true,
      description: 'The http:// or https:// URL to probe.',
    },
    {
      name: 'method',
      type: 'string',
      required: false,
      default: 'GET',
      description: `HTTP method: ${METHODS.join(', ')} (POST sends an empty body).`,
    },
    {
      name: 'expect_status',
      type: 'integer',
      required: false,
      default: 200,
      minimum: 100,
      maximum: 599,
      description: 'The status that counts as healthy. Redirects are not followed.',
    },
    {
      name: 'headers',
      type: 'string_list',
      required: false,
      description:
        'Extra request headers, one "Name: value" per line (not secret; use bearer_token for credentials).',
    },
    {
      name: 'bearer_token',
      type: 'secret',
      required: false,
      description: 'Bearer token sent as Authorization.',
    },
    {
      name: 'ca_file',
      type: 'string',
      required: false,
      description:
        'Absolute path of a PEM file with CA certificates to trust besides the system ones (an in-house CA).',
    },
    {
      name: 'service',
      type: 'string',
      required: false,
      description:
        "The estate service this URL belongs to; discovery names the probed service so (default: the connector's name).",
    },
    {
      name: 'insecure_skip_verify',
      type: 'boolean',
      required: false,
      default: false,
      description:
        'DANGEROUS: accept any TLS certificate (self-signed, wrong host, expired) without verifying it. Anyone in the path can then impersonate the server and read bearer_token. Expiry is still reported.',
    },
  ],
  operations: ['probe', 'setup'],
  create: createHttpClient,
};
