// The http kind against real sockets: a node:http server, a node:https server with a
// self-signed certificate made by openssl, and servers that refuse or never answer.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type RequestListener,
  type Server,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../shared/secret.js';
import type { ProbeResult } from './http.js';
import { httpKind } from './http.js';

const TOKEN = 'probe-token-s3cret-0123456789';
let dir: string;
let plain: Server;
let secure: Server;
let plainUrl: string;
let secureUrl: string;
const seen: {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
}[] = [];

const handler: RequestListener = (req, res) => {
  seen.push({ method: req.method, url: req.url, headers: req.headers });
  if (req.url === '/down') res.writeHead(503).end('down');
  else if (req.url === '/moved') res.writeHead(301, { location: '/' }).end();
  else if (req.url === '/served') res.writeHead(200, { server: 'lab-server/1.2' }).end('ok');
  else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

type Setup = { facts: Record<string, string> };
const setup = async (settings: Record<string, unknown>, signal = AbortSignal.timeout(5000)) =>
  (await httpKind
    .create(settings as Parameters<typeof httpKind.create>[0])
    .call('setup', {}, signal)) as Setup;

const probe = async (settings: Record<string, unknown>, signal = AbortSignal.timeout(5000)) =>
  (await httpKind
    .create(settings as Parameters<typeof httpKind.create>[0])
    .call('probe', {}, signal)) as ProbeResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kinds-http-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '30',
      '-subj',
      '/CN=localhost/O=Lab',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  plain = createHttpServer(handler);
  plainUrl = `http://127.0.0.1:${String(await listen(plain))}`;
  secure = createHttpsServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    handler,
  );
  secureUrl = `https://127.0.0.1:${String(await listen(secure))}`;
});

afterAll(async () => {
  await new Promise((r) => plain?.close(r));
  await new Promise((r) => secure?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('http kind over http', () => {
  it('is ok when the status is the expected one', async () => {
    const result = await probe({ url: `${plainUrl}/` });
    expect(result).toMatchObject({ status: 200, ok: true, tls: null, error: null });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    const health = await httpKind.create({ url: `${plainUrl}/` }).health(AbortSignal.timeout(5000));
    expect(health.ok).toBe(true);
    expect(health.detail).toMatch(/^HTTP 200 in \d+ ms$/);
  });

  it('is not ok on another status, and says which was expected', async () => {
    expect(await probe({ url: `${plainUrl}/down` })).toMatchObject({
      status: 503,
      ok: false,
      error: null,
    });
    const health = await httpKind
      .create({ url: `${plainUrl}/down` })
      .health(AbortSignal.timeout(5000));
    expect(health).toMatchObject({ ok: false });
    expect(health.detail).toMatch(/^HTTP 503 in \d+ ms, expected 200$/);
    expect(await probe({ url: `${plainUrl}/down`, expect_status: 503 })).toMatchObject({
      ok: true,
    });
    expect(await probe({ url: `${plainUrl}/moved`, expect_status: 301 })).toMatchObject({
      status: 301,
      ok: true,
    });
  });

  it('sends the method, headers and bearer token, and never returns the token', async () => {
    seen.length = 0;
    const settings = {
      url: `${plainUrl}/`,
      method: 'head',
      headers: ['X-Probe: yes', 'Accept: text/plain'],
      bearer_token: new Secret(TOKEN),
    };
    const result = await probe(settings);
    expect(result.ok).toBe(true);
    expect(seen[0]?.method).toBe('HEAD');
    expect(seen[0]?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'x-probe': 'yes',
      accept: 'text/plain',
    });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    const health = await httpKind.create(settings).health(AbortSignal.timeout(5000));
    expect(JSON.stringify(health)).not.toContain(TOKEN);
  });

  it('reports a refused connection as an answerless probe, and health rejects', async () => {
    // A port that was free a moment ago: the listener is closed, so connecting is refused.
    const closer = createNetServer();
    const closedPort = await listen(closer);
    await new Promise((r) => closer.close(r));
    const refused = {
      url: `http://127.0.0.1:${String(closedPort)}/`,
      bearer_token: new Secret(TOKEN),
    };
    const started = Date.now();
    const result = await probe(refused);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({ status: null, ok: false, tls: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
    const err = (await httpKind
      .create(refused)
      .health(AbortSignal.timeout(5000))
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^http probe of http:\/\/127\.0\.0\.1:\d+ failed: .*ECONNREFUSED/);
    expect(err.message + String(err.stack) + JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('gives up when the signal times out on a server that never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => sockets.push(s));
    const port = await listen(silent);
    try {
      const settings = {
        url: `http://127.0.0.1:${String(port)}/`,
        bearer_token: new Secret(TOKEN),
      };
      const started = Date.now();
      const err = (await probe(settings, AbortSignal.timeout(300)).catch(
        (e: unknown) => e,
      )) as Error;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe('TimeoutError');
      expect(err.message + String(err.stack)).not.toContain(TOKEN);
      await expect(
        httpKind.create(settings).health(AbortSignal.timeout(300)),
      ).rejects.toMatchObject({ name: 'TimeoutError' });
      // An already aborted signal is refused before connecting.
      await expect(probe(settings, AbortSignal.abort())).rejects.toMatchObject({
        name: 'AbortError',
      });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});

describe('http kind setup', () => {
  it('reads the status and the Server header over http', async () => {
    expect(await setup({ url: `${plainUrl}/served` })).toEqual({
      facts: { status: '200', server: 'lab-server/1.2' },
    });
    // Redirects are not followed: a new redirect is a new status.
    expect(await setup({ url: `${plainUrl}/moved` })).toEqual({ facts: { status: '301' } });
  });

  it('reads the certificate fingerprint, end of validity and issuer over https', async () => {
    const cert = new X509Certificate(readFileSync(join(dir, 'cert.pem')));
    expect(await setup({ url: `${secureUrl}/`, insecure_skip_verify: true })).toEqual({
      facts: {
        status: '200',
        'tls.fingerprint_sha256': cert.fingerprint256,
        'tls.not_after': new Date(cert.validTo).toISOString(),
        'tls.issuer': 'CN=localhost, O=Lab',
      },
    });
  });

  it('fails the read when no answer comes', async () => {
    await expect(setup({ url: `${secureUrl}/` })).rejects.toThrow(
      /^http setup of https:\/\/127\.0\.0\.1:\d+ failed: .*self[- ]signed/i,
    );
  });
});

describe('http kind over https', () => {
  it('refuses a self-signed certificate by default', async () => {
    const result = await probe({ url: `${secureUrl}/` });
    expect(result).toMatchObject({ status: null, ok: false, tls: null });
    expect(result.error).toMatch(/self[- ]signed/i);
  });

  it('reads the certificate when told to skip verification', async () => {
    const result = await probe({ url: `${secureUrl}/`, insecure_skip_verify: true });
    expect(result).toMatchObject({ status: 200, ok: true, error: null });
    expect(result.tls).not.toBeNull();
    expect(result.tls?.days_left).toBeGreaterThanOrEqual(29);
    expect(result.tls?.days_left).toBeLessThanOrEqual(30);
    expect(result.tls?.subject).toBe('CN=localhost, O=Lab');
    expect(result.tls?.issuer).toBe('CN=localhost, O=Lab');
    expect(Date.parse(result.tls?.valid_to ?? '') - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const health = await httpKind
      .create({ url: `${secureUrl}/`, insecure_skip_verify: true })
      .health(AbortSignal.timeout(5000));
    expect(health.detail).toMatch(/^HTTP 200 in \d+ ms, certificate expires in (29|30) days$/);
  });

  it('verifies against an in-house CA given as ca_file', async () => {
    const ok = await probe({ url: `${secureUrl}/`, ca_file: join(dir, 'cert.pem') });
    expect(ok).toMatchObject({ status: 200, ok: true, error: null });
    expect(ok.tls?.subject).toBe('CN=localhost, O=Lab');
  });

  it('refuses a ca_file that is relative, missing or not PEM, naming the setting', () => {
    const create = (ca_file: string) => () => httpKind.create({ url: `${secureUrl}/`, ca_file });
    expect(create('cert.pem')).toThrow(/setting ca_file must be an absolute path/);
    expect(create(join(dir, 'nothing.pem'))).toThrow(/setting ca_file: cannot read .*ENOENT/);
    expect(create(join(dir, 'key.pem'))).toThrow(/setting ca_file: .* holds no PEM certificate/);
  });
});
