// The prometheus kind against Debian's real Prometheus on loopback (e2e/lab helpers): it
// scrapes a tiny exporter served here and evaluates a rule that fires at once. A few local
// sockets cover what a healthy Prometheus cannot show: refused and hanging connections,
// credentials on the wire, oversized answers and redirects.
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startPrometheus, until, type Proc } from '../../../e2e/lab/processes.js';
import { Secret } from '../../shared/secret.js';
import type { ConnectorClient } from '../kind.js';
import type { Alert, InstantSample, RangeSeries, Target } from './prometheus.parse.js';
import { MAX_RESPONSE_BYTES } from './http-api.js';
import { prometheusKind } from './prometheus.js';

const RULES = `groups:
  - name: lab
    rules:
      - alert: LabValueHigh
        expr: lab_value > 0.9
        for: 0s
        labels: { severity: critical, service: lab-api }
        annotations: { summary: 'value above 0.9' }
`;

let exporter: Server;
let exporterTarget: string;
let prom: Proc;
let client: ConnectorClient;

const signal = () => AbortSignal.timeout(10_000);

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  exporter = createHttpServer((_req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end('# TYPE lab_value gauge\nlab_value{path="/api"} 0.95\n');
  });
  exporterTarget = `127.0.0.1:${String(await listen(exporter))}`;
  // Nothing listens on port 1: Prometheus logs failed notifications, which is fine here.
  prom = await startPrometheus(exporterTarget, '127.0.0.1:1', RULES);
  client = prometheusKind.create({ url: prom.url });
  // Wait for the first scrape and the first rule evaluation.
  await until('the first scrape', async () => {
    const targets = (await client.call('targets', {}, signal())) as Target[];
    return targets.some((t) => t.health === 'up') ? true : undefined;
  });
}, 60_000);

afterAll(async () => {
  await prom?.stop();
  await new Promise((r) => exporter?.close(r));
});

describe('prometheus kind against a real Prometheus', () => {
  it('reports health with the version', async () => {
    const health = await client.health(signal());
    expect(health.ok).toBe(true);
    expect(health.detail).toMatch(/^Prometheus 2\.\d+\.\d+\S*, \d+ ms$/);
    expect(health.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('answers an instant query', async () => {
    const samples = (await client.call(
      'query',
      { query: 'up', time: new Date().toISOString() },
      signal(),
    )) as InstantSample[];
    expect(samples.length).toBeGreaterThanOrEqual(1);
    expect(samples).toContainEqual({
      metric: { __name__: 'up', job: 'lab', instance: exporterTarget },
      value: 1,
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) as unknown,
    });
  });

  it('answers scalars, special values included', async () => {
    const inf = (await client.call('query', { query: '1/0' }, signal())) as InstantSample[];
    expect(inf).toEqual([expect.objectContaining({ metric: {}, value: Infinity })]);
    const nan = (await client.call('query', { query: '0/0' }, signal())) as InstantSample[];
    expect(nan[0]?.value).toBeNaN();
  });

  it('answers a range query with points', async () => {
    const end = Date.now() / 1000;
    const series = await until('points in range', async () => {
      const s = (await client.call(
        'range_query',
        { query: 'lab_value', start: new Date((end - 60) * 1000).toISOString(), end, step_s: 1 },
        signal(),
      )) as RangeSeries[];
      return (s[0]?.values.length ?? 0) >= 1 ? s : undefined;
    });
    expect(series[0]?.metric).toMatchObject({ job: 'lab', path: '/api' });
    for (const [at, value] of series[0]?.values ?? []) {
      expect(Number.isNaN(Date.parse(at))).toBe(false);
      expect(value).toBe(0.95);
    }
  });

  it('refuses a range with too many points before asking', async () => {
    await expect(
      client.call('range_query', { query: 'up', start: 0, end: 86_400, step_s: 1 }, signal()),
    ).rejects.toThrow(/exceeds 11000 points/);
  });

  it('lists the scrape target', async () => {
    const targets = (await client.call('targets', {}, signal())) as Target[];
    expect(targets).toContainEqual(
      expect.objectContaining({
        job: 'lab',
        instance: exporterTarget,
        health: 'up',
        scrape_url: `http://${exporterTarget}/metrics`,
        last_error: null,
      }),
    );
  });

  it('lists label names and values', async () => {
    const names = (await client.call('labels', {}, signal())) as string[];
    expect(names).toEqual(expect.arrayContaining(['job', 'instance', 'path']));
    const jobs = (await client.call(
      'labels',
      { name: 'job', match: 'lab_value' },
      signal(),
    )) as string[];
    expect(jobs).toEqual(['lab']);
    await expect(client.call('labels', { name: 'bad-name' }, signal())).rejects.toThrow(
      /label name/,
    );
  });

  it('lists the firing alert', async () => {
    const alerts = await until('LabValueHigh firing', async () => {
      const a = (await client.call('alerts', {}, signal())) as Alert[];
      return a.some((x) => x.name === 'LabValueHigh') ? a : undefined;
    });
    expect(alerts).toContainEqual({
      name: 'LabValueHigh',
      state: 'firing',
      labels: expect.objectContaining({
        alertname: 'LabValueHigh',
        severity: 'critical',
        service: 'lab-api',
      }) as unknown,
      annotations: { summary: 'value above 0.9' },
      active_at: expect.stringMatching(/Z$/) as unknown,
      value: 0.95,
    });
  });

  it("turns a bad query into an Error naming the query and Prometheus' error", async () => {
    const err = (await client
      .call('query', { query: 'sum(' }, signal())
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/^prometheus query "sum\(" failed: bad_data: .*parse error/);
  });

  it('reads its setup: version, config hashes, one hash per rule group, flags of interest', async () => {
    const { facts } = (await client.call('setup', {}, signal())) as {
      facts: Record<string, string>;
    };
    const hex = /^[0-9a-f]{64}$/;
    expect(facts['version']).toMatch(/^2\.\d+\.\d+/);
    expect(facts['config_sha256']).toMatch(hex);
    for (const section of ['global', 'alerting', 'rule_files', 'scrape_configs'])
      expect(facts[`config.${section}`], section).toMatch(hex);
    expect(facts['rule_group.rules.yml/lab']).toMatch(hex);
    expect(facts['flag.storage.tsdb.retention.time']).toBeDefined();
    expect(facts['flag.query.timeout']).toBe('2m');
    // Paths and addresses differ between hosts without a change of behaviour.
    expect(Object.keys(facts).some((k) => /listen|config\.file|tsdb\.path/.test(k))).toBe(false);
    // Evaluation state is no part of it: a second read gives the same facts.
    expect(
      ((await client.call('setup', {}, signal())) as { facts: Record<string, string> }).facts,
    ).toEqual(facts);
  });

  it('checks arguments', async () => {
    await expect(client.call('query', {}, signal())).rejects.toThrow(/argument query/);
    await expect(client.call('query', { query: 'up', time: 'soon' }, signal())).rejects.toThrow(
      /argument time/,
    );
    await expect(client.call('delete_series', {}, signal())).rejects.toThrow(/no operation/);
  });
});

describe('prometheus kind when the server misbehaves', () => {
  it('fails fast when nothing listens', async () => {
    const port = await freePort();
    const dead = prometheusKind.create({ url: `http://127.0.0.1:${String(port)}` });
    const started = Date.now();
    const err = (await dead.health(AbortSignal.timeout(5000)).catch((e: unknown) => e)) as Error;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(
      /cannot reach Prometheus at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
    );
  });

  it('gives up when the signal times out on a server that never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => sockets.push(s));
    const port = await listen(silent);
    try {
      const hung = prometheusKind.create({ url: `http://127.0.0.1:${String(port)}` });
      const started = Date.now();
      const err = (await hung.health(AbortSignal.timeout(300)).catch((e: unknown) => e)) as Error;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe('TimeoutError');
      await expect(
        hung.call('query', { query: 'up' }, AbortSignal.timeout(300)),
      ).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('sends credentials as headers and never puts them in answers or errors', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const fake = createHttpServer((req, res) => {
      seen.push(req.headers);
      res.statusCode = req.url?.startsWith('/api/v1/status/buildinfo') === true ? 200 : 400;
      res.setHeader('content-type', 'application/json');
      res.end(
        res.statusCode === 200
          ? '{"status":"success","data":{"version":"9.9.9"}}'
          : '{"status":"error","errorType":"bad_data","error":"nope"}',
      );
    });
    const port = await listen(fake);
    try {
      const url = `http://127.0.0.1:${String(port)}`;
      const bearer = prometheusKind.create({ url, bearer_token: new Secret('tok-secret-1') });
      const health = await bearer.health(signal());
      expect(health).toMatchObject({ ok: true });
      expect(health.detail).toMatch(/^Prometheus 9\.9\.9, \d+ ms$/);
      expect(seen[0]?.authorization).toBe('Bearer tok-secret-1');
      const err = (await bearer
        .call('query', { query: 'up' }, signal())
        .catch((e: unknown) => e)) as Error;
      expect(err.message).toBe('prometheus query "up" failed: bad_data: nope');
      expect(JSON.stringify(health) + err.message + String(err.stack)).not.toContain('tok-secret');

      const basic = prometheusKind.create({
        url,
        basic_user: 'ops',
        basic_password: new Secret('pw-secret-2'),
      });
      await basic.health(signal());
      expect(seen[2]?.authorization).toBe(
        `Basic ${Buffer.from('ops:pw-secret-2').toString('base64')}`,
      );
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });

  it('refuses oversized answers, follows no redirects and reports auth failures', async () => {
    const big = Buffer.alloc(MAX_RESPONSE_BYTES + 1024, 0x20);
    const fake = createHttpServer((req, res) => {
      if (req.url?.startsWith('/api/v1/query') === true) {
        res.setHeader('content-type', 'application/json');
        res.write(big); // chunked: no content-length to refuse up front
        res.end();
      } else if (req.url?.startsWith('/api/v1/targets') === true) {
        res.writeHead(302, { location: 'http://elsewhere.invalid/login' }).end();
      } else res.writeHead(401).end('unauthorised');
    });
    const port = await listen(fake);
    try {
      const c = prometheusKind.create({ url: `http://127.0.0.1:${String(port)}/` });
      await expect(c.call('query', { query: 'up' }, signal())).rejects.toThrow(
        /response larger than 21 MB refused/,
      );
      await expect(c.call('targets', {}, signal())).rejects.toThrow(
        /redirects \(HTTP 302 to http:\/\/elsewhere\.invalid\/login\); set url/,
      );
      const health = await c.health(signal());
      expect(health.ok).toBe(false);
      expect(health.detail).toMatch(/^HTTP 401 from \/api\/v1\/status\/buildinfo .*check bearer/);
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });
});
