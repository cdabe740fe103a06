// A TLS-inspecting CONNECT proxy, as corporate networks run them: it answers CONNECT, then
// terminates the client's TLS itself with a leaf signed by its own CA, and forwards the
// decrypted bytes over a second TLS connection to the real server (which it trusts through
// `upstreamCaPem`). A client that does not trust the proxy's CA fails the handshake; one that
// pins the real server's key sees the proxy's key instead. Test-only.
import { createServer, type IncomingMessage } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, createSecureContext, TLSSocket } from 'node:tls';
import { splitHostPort } from './connect-proxy.js';
import { makePki, type LeafKey, type Pki } from './pki.js';

export interface InterceptingProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The proxy's own hierarchy: its CA is what SVC_CA_BUNDLE must hold to trust it. */
  readonly pki: Pki;
  /** CONNECT requests answered. */
  readonly connects: number;
  /** TLS handshakes a client completed with the proxy's certificate (it was trusted). */
  readonly handshakes: number;
  close(): Promise<void>;
}

export interface InterceptingProxyOptions {
  /** The CA (PEM) that the real server's chain ends in. */
  readonly upstreamCaPem: string;
  readonly leafKey?: LeafKey;
}

export async function startInterceptingProxy(
  options: InterceptingProxyOptions,
): Promise<InterceptingProxy> {
  const pki = makePki({ name: 'inspecting proxy', leaf: { key: options.leafKey ?? 'p256' } });
  const context = createSecureContext({ key: pki.leafKeyPem, cert: pki.chainPem });
  const sockets = new Set<Duplex>();
  const track = (s: Duplex) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  let connects = 0;
  let handshakes = 0;

  const server = createServer((_req, res) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const [host, portText] = splitHostPort(req.url ?? '');
    if (host === '' || portText === '') {
      client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    connects += 1;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) client.unshift(head);
    const inner = new TLSSocket(client, { isServer: true, secureContext: context });
    track(inner);
    inner.on('error', () => client.destroy());
    inner.once('secure', () => {
      handshakes += 1;
      const upstream = tlsConnect({
        host,
        port: Number(portText),
        ca: options.upstreamCaPem,
        // SNI takes host names only.
        ...(isIP(host) === 0 ? { servername: host } : {}),
      });
      track(upstream);
      upstream.on('error', () => inner.destroy());
      upstream.once('secureConnect', () => {
        inner.pipe(upstream);
        upstream.pipe(inner);
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    pki,
    get connects() {
      return connects;
    },
    get handshakes() {
      return handshakes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          pki.remove();
          resolve();
        });
      }),
  };
}
