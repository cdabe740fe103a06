// For the history kinds' and lookback's tests: the exchanges recorded from each vendor's
// documentation (server/connectors/kinds/history-exchanges/<vendor>.json, each with its
// sources), and a real node:http server that answers with them and keeps every request it
// received, so a test checks what was sent.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface Exchange {
  readonly request: { readonly method: string; readonly path: string };
  readonly response: { readonly status: number; readonly body: unknown };
}

export interface Recorded {
  readonly vendor: string;
  readonly sources: readonly string[];
  readonly trimmed: string;
  /** what of the file was not checked against the vendor's page text */
  readonly not_verified?: string;
  readonly exchanges: Readonly<Record<string, Exchange>>;
}

export function recorded(vendor: string): Recorded {
  const url = new URL(`../connectors/kinds/history-exchanges/${vendor}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Recorded;
}

export interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the server answers a request: an exchange's response, or 'hang' (never answers). */
export type Answer = Exchange['response'] | 'hang';

export interface Replay {
  readonly url: string;
  readonly seen: Seen[];
  /** Change how the server answers (each test sets its own). */
  answer(route: (req: Seen) => Answer): void;
  close(): Promise<void>;
}

export async function replayServer(): Promise<Replay> {
  const seen: Seen[] = [];
  let route: (req: Seen) => Answer = () => ({ status: 404, body: { error: 'no route' } });
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://replay');
      const s: Seen = {
        method: req.method ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(s);
      const a = route(s);
      if (a === 'hang') return; // a server that stops answering
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${String(address.port)}`,
    seen,
    answer(r) {
      route = r;
      seen.length = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
