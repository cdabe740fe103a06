// A Prometheus stand-in (node:http) for study tests: three scrape targets (app, postgresql,
// web) and range answers made so that the study's findings are known in advance: app's CPU
// leads postgresql's by two steps, app has memory, web has no series at all. Instant queries
// (the packs' checks) answer an empty vector after `delayMs`, so a test can catch a study
// between two causes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A deterministic, irregular series: no period, so only the true lag correlates fully. */
export const wave = (i: number): number => ((((i * 37 + 11) % 17) + 17) % 17) + 1;

export interface Stub {
  server: Server;
  url: string;
  /** ms each instant query (a check's read) waits */
  delayMs: number;
}

export const body = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

/** The series a range query gets: by service and reading, aligned on the asked steps. */
function seriesFor(query: string, start: number, end: number, step: number): number[] | null {
  const n = Math.floor((end - start) / step) + 1;
  const at = (f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));
  if (query.includes('"web"')) return null;
  const app = query.includes('"app"');
  if (!app && !query.includes('"postgresql"')) return null;
  if (query.startsWith('avg(up')) return at(() => 1);
  if (query.includes('process_cpu_seconds_total'))
    return at((i) => (app ? wave(i) : wave(i - 2)) / 100);
  if (query.includes('process_resident_memory_bytes') && app) return at((i) => 1000 + (i % 3));
  return null;
}

export async function prometheusStandIn(): Promise<Stub> {
  const stub: Stub = { server: createServer(), url: '', delayMs: 0 };
  const json = (res: ServerResponse, data: unknown): void => {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: 'success', data }));
  };
  stub.server.on('request', (req, res) => {
    void (async (): Promise<void> => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const form = new URLSearchParams(req.method === 'POST' ? await body(req) : url.search);
      if (url.pathname === '/api/v1/status/buildinfo') return json(res, { version: '2.53.0' });
      if (url.pathname === '/api/v1/targets') {
        const t = (service: string, host: string) => ({
          labels: { job: service, service, host, instance: `${host}:9100` },
          scrapePool: service,
          scrapeUrl: `http://${host}:9100/metrics`,
          lastError: '',
          lastScrape: new Date().toISOString(),
          health: 'up',
        });
        return json(res, {
          activeTargets: [t('app', 'app-1'), t('postgresql', 'db-1'), t('web', 'web-1')],
        });
      }
      if (url.pathname === '/api/v1/query_range') {
        const [start, end, step] = ['start', 'end', 'step'].map((k) => Number(form.get(k)));
        const values = seriesFor(form.get('query') ?? '', start ?? 0, end ?? 0, step ?? 1);
        return json(res, {
          resultType: 'matrix',
          result:
            values === null
              ? []
              : [
                  {
                    metric: {},
                    values: values.map((v, i) => [(start ?? 0) + i * (step ?? 1), String(v)]),
                  },
                ],
        });
      }
      if (url.pathname === '/api/v1/query') {
        if (stub.delayMs > 0) await new Promise((r) => setTimeout(r, stub.delayMs));
        return json(res, { resultType: 'vector', result: [] });
      }
      res.writeHead(404).end();
    })();
  });
  stub.url = await listen(stub.server);
  return stub;
}
