// An HTTPS server on loopback presenting a given chain: the test authority mounts its routes
// (/v1/check, /v1/redeem, …) on it; the transport's tests mount small ones of their own.
// Test-only: nothing under server/ imports this.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export type HttpsApp = FastifyInstance<HttpsServer>;

export interface HttpsServerOptions {
  /** The leaf's private key (PEM). */
  readonly keyPem: string;
  /** What the server presents: the leaf, then the intermediates (PEM). */
  readonly chainPem: string;
  /** Registers the routes (and hooks) on the app before it listens. */
  readonly routes?: (app: HttpsApp) => void | Promise<void>;
  readonly host?: string;
  readonly port?: number;
}

export interface RunningHttpsServer {
  /** https://127.0.0.1:<port> (no trailing slash) */
  readonly url: string;
  readonly port: number;
  readonly app: HttpsApp;
  /** TCP connections accepted (a client that rejects the certificate still counts here). */
  readonly connections: number;
  /** Connections still open now (a client that keeps none after its call leaves 0). */
  readonly open: number;
  /** TLS handshakes the server saw complete. */
  readonly handshakes: number;
  /** HTTP requests that reached the app (a request byte was sent and parsed). */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startHttpsServer(options: HttpsServerOptions): Promise<RunningHttpsServer> {
  const app: HttpsApp = Fastify({
    https: { key: options.keyPem, cert: options.chainPem },
    logger: false,
    // A test that leaves a request hanging (a silent authority) must not hold close() up.
    forceCloseConnections: true,
  });
  let requests = 0;
  let handshakes = 0;
  let connections = 0;
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections += 1;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.server.on('secureConnection', () => {
    handshakes += 1;
  });
  app.addHook('onRequest', async () => {
    requests += 1;
  });
  await options.routes?.(app);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${String(port)}`,
    port,
    app,
    get connections() {
      return connections;
    },
    get open() {
      return open.size;
    },
    get handshakes() {
      return handshakes;
    },
    get requests() {
      return requests;
    },
    close: () => app.close(),
  };
}
