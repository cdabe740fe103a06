// The licence authority transport against a real HTTPS server on loopback (e2e/authority/):
// pins right, wrong and backup; HTTPS_PROXY through a CONNECT proxy and NO_PROXY around it;
// a TLS-inspecting proxy with and without SVC_CA_BUNDLE; timeouts, nothing listening, and
// answers too large or not JSON (design licence.md §3.6, §4.2 cases 21–23).
import { createHash, X509Certificate } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectProxy } from '../../e2e/authority/connect-proxy.js';
import { startHttpsServer, type RunningHttpsServer } from '../../e2e/authority/https-server.js';
import { startInterceptingProxy } from '../../e2e/authority/intercepting-proxy.js';
import {
  makePki,
  opensslSpkiPin,
  spkiPin,
  writePemFile,
  type Pki,
} from '../../e2e/authority/pki.js';
import { Secret } from '../shared/secret.js';
import {
  postToAuthority,
  spkiPinOf,
  type AuthorityResponse,
  type AuthorityTransportSettings,
} from './index.js';

const BIG = 300 * 1024;
const cleanups: (() => unknown)[] = [];
let rsa: Pki;
let p256: Pki;
let bundle: string;
let server: RunningHttpsServer;
let p256Server: RunningHttpsServer;
let silent: RunningHttpsServer;

async function routes(app: RunningHttpsServer['app']): Promise<void> {
  app.post('/v1/echo', async (req) => ({ got: req.body, ok: true }));
  app.post('/v1/status-409', async (_req, reply) => reply.code(409).send({ error: 'nope' }));
  app.post('/v1/html', async (_req, reply) =>
    reply.type('text/html').send('<html>captive portal</html>'),
  );
  app.post('/v1/empty', async (_req, reply) => reply.code(204).send());
  // The authority's behaviour drop_connection: the socket closes before any answer.
  app.post('/v1/drop', async (req, reply) => {
    req.raw.socket.destroy();
    return reply;
  });
  // Half an answer, then the socket closes.
  app.post('/v1/cut', async (_req, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    reply.raw.write('{"status":"o');
    setTimeout(() => reply.raw.socket?.destroy(), 20);
    return reply;
  });
  app.post('/v1/big', async () => ({ pad: 'x'.repeat(BIG) }));
  // A streamed answer with no length: the limit must hold on what arrives.
  app.post('/v1/big-stream', async (_req, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'application/json' });
    reply.raw.write('{"pad":"');
    for (let i = 0; i < BIG / 1024; i += 1) reply.raw.write('y'.repeat(1024));
    reply.raw.end('"}');
    return reply;
  });
}

function settings(over: Partial<AuthorityTransportSettings> = {}): AuthorityTransportSettings {
  return {
    authorityUrl: server.url,
    authorityPins: [],
    caBundle: bundle,
    httpsProxy: null,
    noProxy: null,
    ...over,
  };
}

function answer(r: AuthorityResponse): { status: number; body: unknown } {
  if (!r.ok) throw new Error(`expected an answer, got ${r.result}: ${r.detail}`);
  return { status: r.status, body: r.body };
}

/** A port where nothing listens (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  rsa = makePki({ name: 'authority rsa', leaf: { key: 'rsa' } });
  p256 = makePki({ name: 'authority p256', leaf: { key: 'p256' } });
  const b = writePemFile(rsa.caPem + p256.caPem);
  bundle = b.path;
  server = await startHttpsServer({ keyPem: rsa.leafKeyPem, chainPem: rsa.chainPem, routes });
  p256Server = await startHttpsServer({
    keyPem: p256.leafKeyPem,
    chainPem: p256.chainPem,
    routes,
  });
  silent = await startHttpsServer({
    keyPem: rsa.leafKeyPem,
    chainPem: rsa.chainPem,
    routes: (app) => {
      app.post('/v1/check', () => new Promise<never>(() => undefined));
    },
  });
  cleanups.push(
    () => server.close(),
    () => p256Server.close(),
    () => silent.close(),
    () => b.remove(),
    () => rsa.remove(),
    () => p256.remove(),
  );
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('a plain exchange', () => {
  it('posts JSON to authorityUrl + path and returns the status and parsed body', async () => {
    const r = await postToAuthority(settings(), '/v1/echo', { nonce: 'n-1', serial: 7 });
    expect(answer(r)).toEqual({
      status: 200,
      body: { got: { nonce: 'n-1', serial: 7 }, ok: true },
    });
    expect(r).toMatchObject({ via: 'direct' });
  });

  it('a trailing slash on the authority URL makes no double slash', async () => {
    const r = await postToAuthority(settings({ authorityUrl: `${server.url}/` }), '/v1/echo', {});
    expect(answer(r).status).toBe(200);
  });

  it('a JSON answer with any status is an answer: the caller judges the status', async () => {
    const r = await postToAuthority(settings(), '/v1/status-409', {});
    expect(answer(r)).toEqual({ status: 409, body: { error: 'nope' } });
  });
});

describe('pins (SVC_AUTHORITY_PINS)', () => {
  it('the right pin (the leaf) passes', async () => {
    const r = await postToAuthority(
      settings({ authorityPins: [spkiPin(rsa.leafPem)] }),
      '/v1/echo',
      {},
    );
    expect(answer(r).status).toBe(200);
  });

  it('a pin of the intermediate or the root passes: any certificate of the chain', async () => {
    for (const pem of [rsa.intermediatePem, rsa.caPem]) {
      const r = await postToAuthority(settings({ authorityPins: [spkiPin(pem)] }), '/v1/echo', {});
      expect(answer(r).status).toBe(200);
    }
  });

  it('a wrong pin: pin_mismatch listing the chain seen, before any request byte is sent', async () => {
    const before = server.requests;
    const connections = server.connections;
    const r = await postToAuthority(
      settings({ authorityPins: [spkiPin(p256.leafPem)] }),
      '/v1/echo',
      { nonce: 'n-2' },
    );
    expect(r).toMatchObject({ ok: false, result: 'pin_mismatch' });
    if (r.ok) return;
    expect(r.seen).toEqual([
      spkiPin(rsa.leafPem),
      spkiPin(rsa.intermediatePem),
      spkiPin(rsa.caPem),
    ]);
    expect(r.detail).toContain(spkiPin(rsa.leafPem));
    expect(r.detail).toContain('SVC_AUTHORITY_PINS');
    // The client connected and saw the certificates, and no request reached the server.
    expect(server.connections).toBeGreaterThan(connections);
    expect(server.requests).toBe(before);
  });

  it('the backup pin: the second of two pins matches', async () => {
    const r = await postToAuthority(
      settings({ authorityPins: [spkiPin(p256.leafPem), spkiPin(rsa.leafPem)] }),
      '/v1/echo',
      {},
    );
    expect(answer(r).status).toBe(200);
  });

  it('a pin does not stand in for trust: a pinned but untrusted chain is a tls_error', async () => {
    const r = await postToAuthority(
      settings({ caBundle: null, authorityPins: [spkiPin(rsa.leafPem)] }),
      '/v1/echo',
      {},
    );
    expect(r).toMatchObject({ ok: false, result: 'tls_error' });
  });

  it('the host name is still checked when a pin matches', async () => {
    const other = rsa.issueLeaf({ key: 'rsa', altNames: ['DNS:elsewhere.test'] });
    const s = await startHttpsServer({
      keyPem: other.leafKeyPem,
      chainPem: other.chainPem,
      routes,
    });
    try {
      const r = await postToAuthority(
        settings({ authorityUrl: s.url, authorityPins: [spkiPin(other.leafPem)] }),
        '/v1/echo',
        {},
      );
      expect(r).toMatchObject({ ok: false, result: 'tls_error' });
      if (!r.ok) expect(r.detail).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
      expect(s.requests).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('pins over http:// are refused without sending anything', async () => {
    const r = await postToAuthority(
      settings({ authorityUrl: 'http://127.0.0.1:9', authorityPins: [spkiPin(rsa.leafPem)] }),
      '/v1/echo',
      {},
    );
    expect(r).toMatchObject({ ok: false, result: 'tls_error' });
    if (!r.ok) expect(r.detail).toMatch(/https/);
  });
});

describe('case 23: pins of RSA and P-256 leaves, as openssl computes them', () => {
  it('the pin helper, the transport and openssl agree for both key types', () => {
    for (const pki of [rsa, p256]) {
      const fromOpenssl = opensslSpkiPin(pki.leafPem);
      expect(spkiPin(pki.leafPem)).toBe(fromOpenssl);
      expect(spkiPinOf(new X509Certificate(pki.leafPem).raw)).toBe(fromOpenssl);
    }
  });

  it("a pin from the TLS peer certificate's pubkey is not the SPKI pin for P-256 (the bug)", async () => {
    const { connect } = await import('node:tls');
    const pubkey = await new Promise<Buffer>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: p256Server.port, ca: p256.caPem }, () => {
        const { pubkey } = s.getPeerCertificate();
        s.end();
        if (pubkey === undefined) reject(new Error('the peer certificate has no pubkey'));
        else resolve(pubkey);
      });
      s.on('error', reject);
    });
    const wrong = `sha256/${createHash('sha256').update(pubkey).digest('base64')}`;
    expect(wrong).not.toBe(opensslSpkiPin(p256.leafPem));
  });

  it('an RSA leaf and a P-256 leaf both pass with their openssl-computed pins', async () => {
    for (const [pki, s] of [
      [rsa, server],
      [p256, p256Server],
    ] as const) {
      const r = await postToAuthority(
        settings({ authorityUrl: s.url, authorityPins: [opensslSpkiPin(pki.leafPem)] }),
        '/v1/echo',
        {},
      );
      expect(answer(r).status).toBe(200);
    }
  });
});

describe('case 21: HTTPS_PROXY and NO_PROXY', () => {
  it('HTTPS_PROXY set: the request goes through the CONNECT proxy', async () => {
    const proxy = await startConnectProxy();
    try {
      const r = await postToAuthority(
        settings({ httpsProxy: new Secret(proxy.url), authorityPins: [spkiPin(rsa.leafPem)] }),
        '/v1/echo',
        { via: 'proxy' },
      );
      expect(answer(r).body).toMatchObject({ got: { via: 'proxy' } });
      expect(r).toMatchObject({ via: 'proxy' });
      expect(proxy.connects).toBe(1);
      expect(proxy.targets).toEqual([`127.0.0.1:${String(server.port)}`]);
    } finally {
      await proxy.close();
    }
  });

  it('NO_PROXY naming the authority host: direct, the proxy sees nothing', async () => {
    const proxy = await startConnectProxy();
    try {
      for (const noProxy of ['127.0.0.1', `example.test, 127.0.0.1:${String(server.port)}`, '*']) {
        const r = await postToAuthority(
          settings({ httpsProxy: new Secret(proxy.url), noProxy }),
          '/v1/echo',
          {},
        );
        expect(answer(r).status).toBe(200);
        expect(r).toMatchObject({ via: 'direct' });
      }
      expect(proxy.connects).toBe(0);
      // A NO_PROXY naming another host, or another port, leaves the proxy in the way.
      const r = await postToAuthority(
        settings({ httpsProxy: new Secret(proxy.url), noProxy: 'example.test,127.0.0.1:1' }),
        '/v1/echo',
        {},
      );
      expect(answer(r).status).toBe(200);
      expect(proxy.connects).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('a proxy that refuses the tunnel: unreachable, naming the proxy (without its password)', async () => {
    const proxy = await startConnectProxy({ refuseWith: 403 });
    try {
      const withPassword = proxy.url.replace('http://', 'http://user:pw-planted@');
      const r = await postToAuthority(
        settings({ httpsProxy: new Secret(withPassword) }),
        '/v1/echo',
        {},
      );
      expect(r).toMatchObject({ ok: false, result: 'unreachable', via: 'proxy' });
      if (r.ok) return;
      expect(r.detail).toContain('403');
      expect(r.detail).toContain(proxy.url);
      expect(r.detail).not.toContain('pw-planted');
    } finally {
      await proxy.close();
    }
  });

  it('a proxy that is down: unreachable', async () => {
    const port = await deadPort();
    const r = await postToAuthority(
      settings({ httpsProxy: new Secret(`http://127.0.0.1:${String(port)}`) }),
      '/v1/echo',
      {},
    );
    expect(r).toMatchObject({ ok: false, result: 'unreachable', via: 'proxy' });
    if (!r.ok) expect(r.detail).toMatch(/ECONNREFUSED/);
  });
});

describe('case 22: a TLS-inspecting proxy', () => {
  it('without its CA in SVC_CA_BUNDLE: tls_error saying so', async () => {
    const proxy = await startInterceptingProxy({ upstreamCaPem: rsa.caPem });
    try {
      for (const caBundle of [null, bundle]) {
        const before = server.requests;
        const r = await postToAuthority(
          settings({ caBundle, httpsProxy: new Secret(proxy.url) }),
          '/v1/echo',
          {},
        );
        expect(r).toMatchObject({ ok: false, result: 'tls_error', via: 'proxy' });
        if (r.ok) return;
        expect(r.detail).toMatch(/not trusted/);
        expect(r.detail).toMatch(/UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN/);
        expect(r.detail).toContain('SVC_CA_BUNDLE');
        expect(server.requests).toBe(before);
      }
      expect(proxy.connects).toBe(2);
      expect(proxy.handshakes).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("with its CA in SVC_CA_BUNDLE: ok, and the authority's own answer comes back", async () => {
    const proxy = await startInterceptingProxy({ upstreamCaPem: rsa.caPem });
    const b = writePemFile(proxy.pki.caPem);
    try {
      const before = server.requests;
      const r = await postToAuthority(
        settings({ caBundle: b.path, httpsProxy: new Secret(proxy.url) }),
        '/v1/echo',
        { through: 'inspection' },
      );
      expect(answer(r)).toEqual({
        status: 200,
        body: { got: { through: 'inspection' }, ok: true },
      });
      expect(proxy.handshakes).toBe(1);
      expect(server.requests).toBe(before + 1);
    } finally {
      b.remove();
      await proxy.close();
    }
  });

  it("with pins for the real leaf: pin_mismatch listing the proxy's keys", async () => {
    const proxy = await startInterceptingProxy({ upstreamCaPem: rsa.caPem });
    const b = writePemFile(proxy.pki.caPem);
    try {
      const before = server.requests;
      const r = await postToAuthority(
        settings({
          caBundle: b.path,
          httpsProxy: new Secret(proxy.url),
          authorityPins: [spkiPin(rsa.leafPem), spkiPin(rsa.caPem)],
        }),
        '/v1/echo',
        {},
      );
      expect(r).toMatchObject({ ok: false, result: 'pin_mismatch', via: 'proxy' });
      if (r.ok) return;
      expect(r.seen).toEqual([
        spkiPin(proxy.pki.leafPem),
        spkiPin(proxy.pki.intermediatePem),
        spkiPin(proxy.pki.caPem),
      ]);
      expect(server.requests).toBe(before);
    } finally {
      b.remove();
      await proxy.close();
    }
  });
});

describe('no connection outlives a call', () => {
  it('after an answer, a pin mismatch, a bad answer and a timeout, the server holds none', async () => {
    const until = async (test: () => boolean) => {
      for (let i = 0; i < 100 && !test(); i += 1) await new Promise((r) => setTimeout(r, 20));
      return test();
    };
    await postToAuthority(settings(), '/v1/echo', {});
    await postToAuthority(settings({ authorityPins: [spkiPin(p256.leafPem)] }), '/v1/echo', {});
    await postToAuthority(settings(), '/v1/big-stream', {});
    expect(await until(() => server.open === 0)).toBe(true);
    const r = await postToAuthority(
      settings({ authorityUrl: silent.url }),
      '/v1/check',
      {},
      {
        totalTimeoutMs: 200,
      },
    );
    expect(r).toMatchObject({ result: 'timeout' });
    expect(await until(() => silent.open === 0)).toBe(true);
  });
});

describe('failures: timeout, unreachable, bad answers', () => {
  it('a server that accepts but never completes TLS: timeout (connect limit)', async () => {
    const sockets = new Set<Socket>();
    const mute: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const { port } = mute.address() as AddressInfo;
    try {
      const t0 = performance.now();
      const r = await postToAuthority(
        settings({ authorityUrl: `https://127.0.0.1:${String(port)}` }),
        '/v1/check',
        {},
        { connectTimeoutMs: 300, totalTimeoutMs: 5_000 },
      );
      expect(r).toMatchObject({ ok: false, result: 'timeout' });
      if (!r.ok) expect(r.detail).toMatch(/connect/i);
      expect(performance.now() - t0).toBeLessThan(3_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => mute.close(() => resolve()));
    }
  });

  it('a server that takes the request but never answers: timeout (total limit)', async () => {
    const t0 = performance.now();
    const r = await postToAuthority(
      settings({ authorityUrl: silent.url }),
      '/v1/check',
      {},
      { connectTimeoutMs: 2_000, totalTimeoutMs: 500 },
    );
    expect(r).toMatchObject({ ok: false, result: 'timeout' });
    if (!r.ok) expect(r.detail).toMatch(/0\.5 s/);
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(silent.requests).toBeGreaterThan(0);
  });

  it('a caller that gives up: timeout, said to be cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await postToAuthority(
      settings({ authorityUrl: silent.url }),
      '/v1/check',
      {},
      {
        signal: controller.signal,
      },
    );
    expect(r).toMatchObject({ ok: false, result: 'timeout' });
    if (!r.ok) expect(r.detail).toMatch(/cancelled/);
  });

  it('nothing listening: unreachable', async () => {
    const port = await deadPort();
    const r = await postToAuthority(
      settings({ authorityUrl: `https://127.0.0.1:${String(port)}` }),
      '/v1/check',
      {},
    );
    expect(r).toMatchObject({ ok: false, result: 'unreachable', via: 'direct' });
    if (!r.ok) expect(r.detail).toMatch(/ECONNREFUSED/);
  });

  it('the connection dropped before or during the answer: unreachable', async () => {
    for (const path of ['/v1/drop', '/v1/cut']) {
      const r = await postToAuthority(settings(), path, {});
      expect(r).toMatchObject({ ok: false, result: 'unreachable', via: 'direct' });
      if (!r.ok) expect(r.detail).toMatch(/closed|reset|socket/i);
    }
  });

  it('a server that does not speak TLS on the https:// port: tls_error', async () => {
    const plain = createServer((s) => {
      s.resume();
      s.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const { port } = plain.address() as AddressInfo;
    try {
      const r = await postToAuthority(
        settings({ authorityUrl: `https://127.0.0.1:${String(port)}` }),
        '/v1/check',
        {},
      );
      expect(r).toMatchObject({ ok: false, result: 'tls_error' });
      if (!r.ok)
        expect(r.detail).toMatch(
          /^TLS with 127\.0\.0\.1:\d+ failed \(ERR_SSL_WRONG_VERSION_NUMBER: wrong version number\)$/,
        );
    } finally {
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  it('an answer over 256 KiB, declared or streamed: bad_answer', async () => {
    for (const path of ['/v1/big', '/v1/big-stream']) {
      const r = await postToAuthority(settings(), path, {});
      expect(r).toMatchObject({ ok: false, result: 'bad_answer' });
      if (!r.ok) expect(r.detail).toMatch(/256 KiB/);
    }
  });

  it('an answer that is not JSON, or empty: bad_answer with the status', async () => {
    const html = await postToAuthority(settings(), '/v1/html', {});
    expect(html).toMatchObject({ ok: false, result: 'bad_answer' });
    if (!html.ok) expect(html.detail).toMatch(/200.*not JSON.*captive portal/);
    const empty = await postToAuthority(settings(), '/v1/empty', {});
    expect(empty).toMatchObject({ ok: false, result: 'bad_answer' });
    if (!empty.ok) expect(empty.detail).toMatch(/204/);
  });

  it('an SVC_CA_BUNDLE that cannot be read or holds no certificate: tls_error naming it', async () => {
    const junk = writePemFile('not a certificate\n');
    try {
      for (const caBundle of ['/nonexistent/bundle.pem', junk.path]) {
        const before = server.requests;
        const r = await postToAuthority(settings({ caBundle }), '/v1/echo', {});
        expect(r).toMatchObject({ ok: false, result: 'tls_error' });
        if (!r.ok) expect(r.detail).toContain(`SVC_CA_BUNDLE ${caBundle}`);
        expect(server.requests).toBe(before);
      }
    } finally {
      junk.remove();
    }
  });
});
