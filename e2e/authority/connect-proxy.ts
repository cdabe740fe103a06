// A small HTTP CONNECT proxy on loopback (node:http + net) that counts the tunnels it opened,
// so a test can assert that the traffic went through it (HTTPS_PROXY) or did not (NO_PROXY).
// Test-only: nothing under server/ imports this.
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface ConnectProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** CONNECT requests answered 200 (a tunnel was opened). */
  readonly connects: number;
  /** The host:port of each CONNECT, in order. */
  readonly targets: readonly string[];
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /** Refuse every CONNECT with this status (a proxy that forbids the destination). */
  readonly refuseWith?: number;
}

export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const targets: string[] = [];
  let connects = 0;
  const sockets = new Set<Duplex>();
  const track = (s: Duplex) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const server = createServer((_req, res) => {
    res.writeHead(405, { 'content-type': 'text/plain' }).end('CONNECT only\n');
  });
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const target = req.url ?? '';
    targets.push(target);
    const [host = '', portText = ''] = splitHostPort(target);
    if (options.refuseWith !== undefined || host === '' || !/^\d+$/.test(portText)) {
      client.end(`HTTP/1.1 ${options.refuseWith ?? 400} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream: Socket = connect(Number(portText), host);
    track(upstream);
    upstream.once('connect', () => {
      connects += 1;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    client.on('error', () => upstream.destroy());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    get connects() {
      return connects;
    },
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** "host:port" or "[v6]:port" into its parts. */
export function splitHostPort(target: string): [string, string] {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(target) ?? /^([^:]+):(\d+)$/.exec(target);
  return m === null ? ['', ''] : [m[1] ?? '', m[2] ?? ''];
}
