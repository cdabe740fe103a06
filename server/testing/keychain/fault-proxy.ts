// A proxy in front of one install, through which the others reach it (its roster address),
// that cuts links by sender: a signed peer call names its sender's key (keyid), and a call
// from a cut sender has its connection dropped, as a network partition would. Cutting A at
// B's proxy and B at A's cuts the link both ways; one side alone is a one-sided partition.
// Only signed calls are cut: an unsigned one (hello) names no sender and passes, as do the
// answers of calls let through.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultProxy {
  readonly url: string;
  /** Where calls go on to (set once the install behind it listens). */
  target: string;
  /** Drop every call signed by these fingerprints from now on. */
  cut(...fps: string[]): void;
  /** Let every sender through again. */
  heal(): void;
  /** Calls dropped so far. */
  dropped(): number;
  close(): Promise<void>;
}

const senderOf = (headers: IncomingHttpHeaders): string | null =>
  /keyid="([^"]+)"/.exec(String(headers['signature-input'] ?? ''))?.[1] ?? null;

export async function faultProxy(): Promise<FaultProxy> {
  const cut = new Set<string>();
  let dropped = 0;
  const proxy: FaultProxy = {
    url: '',
    target: '',
    cut: (...fps) => {
      for (const fp of fps) cut.add(fp);
    },
    heal: () => {
      cut.clear();
    },
    dropped: () => dropped,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
  const server = createServer((req, res) => {
    const from = senderOf(req.headers);
    if ((from !== null && cut.has(from)) || proxy.target === '') {
      dropped++;
      req.socket.destroy();
      return;
    }
    const onward = request(
      `${proxy.target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('error', () => res.destroy());
        answer.pipe(res);
      },
    );
    res.on('error', () => onward.destroy());
    onward.on('error', () => req.socket.destroy());
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, { url: `http://127.0.0.1:${String(port)}` });
}
