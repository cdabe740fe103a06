// The alertmanager kind against Debian's real Alertmanager on loopback (e2e/lab helpers): the
// test posts alerts and a silence through Alertmanager's own API, then reads them back through
// the kind. A few local sockets cover what a healthy Alertmanager cannot show: refused and
// hanging connections, credentials on the wire, error answers.
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startAlertmanager, until, type Proc } from '../../../e2e/lab/processes.js';
import { Secret } from '../../shared/secret.js';
import type { ConnectorClient } from '../kind.js';
import type { AmAlert, AmSilence, AmStatus } from './alertmanager.parse.js';
import { alertmanagerKind } from './alertmanager.js';

let am: Proc;
let client: ConnectorClient;
let silenceId: string;

const signal = () => AbortSignal.timeout(10_000);

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function post(path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${am.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${path}: HTTP ${String(res.status)}: ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

beforeAll(async () => {
  // Nothing listens on port 1: Alertmanager logs failed notifications, which is fine here.
  am = await startAlertmanager('http://127.0.0.1:1/hook', 'lab-ingest-token');
  client = alertmanagerKind.create({ url: am.url });
  const now = Date.now();
  await post('/api/v2/alerts', [
    {
      labels: { alertname: 'LabDiskFull', severity: 'critical', service: 'lab-api' },
      annotations: { summary: 'disk above 95%' },
      generatorURL: 'http://prometheus.lab/graph?g0.expr=disk',
      startsAt: new Date(now - 60_000).toISOString(),
    },
    {
      labels: { alertname: 'LabNoisy', severity: 'warning', service: 'lab-api' },
      annotations: {},
      startsAt: new Date(now - 30_000).toISOString(),
    },
  ]);
  const created = (await post('/api/v2/silences', {
    matchers: [{ name: 'alertname', value: 'LabNoisy', isRegex: false, isEqual: true }],
    startsAt: new Date(now - 1000).toISOString(),
    endsAt: new Date(now + 3_600_000).toISOString(),
    createdBy: 'lab-test',
    comment: 'noisy during the test',
  })) as { silenceID: string };
  silenceId = created.silenceID;
}, 60_000);

afterAll(async () => {
  await am?.stop();
});

describe('alertmanager kind against a real Alertmanager', () => {
  it('reports health with the version', async () => {
    const health = await client.health(signal());
    expect(health.ok).toBe(true);
    expect(health.detail).toMatch(/^Alertmanager 0\.\d+\.\d+\S*, \d+ ms$/);
  });

  it('reports status without the configuration', async () => {
    const status = (await client.call('status', {}, signal())) as AmStatus;
    expect(status).toEqual({
      version: expect.stringMatching(/^0\.\d+\.\d+/) as unknown,
      uptime: expect.stringMatching(/Z$/) as unknown,
      cluster_status: 'disabled',
    });
    expect(JSON.stringify(status)).not.toContain('lab-ingest-token');
  });

  it('reads its setup: version and configuration hashes, never the configuration', async () => {
    const { facts } = (await client.call('setup', {}, signal())) as {
      facts: Record<string, string>;
    };
    const hex = /^[0-9a-f]{64}$/;
    expect(Object.keys(facts).sort()).toEqual([
      'config.global',
      'config.receivers',
      'config.route',
      'config.templates',
      'config_sha256',
      'version',
    ]);
    expect(facts['version']).toMatch(/^0\.\d+\.\d+/);
    for (const [k, v] of Object.entries(facts)) if (k !== 'version') expect(v, k).toMatch(hex);
    // The receiver's credentials are in the configuration; only its hashes leave.
    expect(JSON.stringify(facts)).not.toContain('lab-ingest-token');
    expect(
      ((await client.call('setup', {}, signal())) as { facts: Record<string, string> }).facts,
    ).toEqual(facts);
  });

  it('lists the active alert with its labels, and leaves the silenced one out', async () => {
    const alerts = await until('LabDiskFull listed', async () => {
      const a = (await client.call('alerts', {}, signal())) as AmAlert[];
      return a.some((x) => x.name === 'LabDiskFull') ? a : undefined;
    });
    expect(alerts.map((a) => a.name)).toEqual(['LabDiskFull']);
    expect(alerts[0]).toEqual({
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
      name: 'LabDiskFull',
      status: { state: 'active', silenced_by: [], inhibited_by: [] },
      labels: { alertname: 'LabDiskFull', severity: 'critical', service: 'lab-api' },
      annotations: { summary: 'disk above 95%' },
      starts_at: expect.stringMatching(/Z$/) as unknown,
      ends_at: expect.stringMatching(/Z$/) as unknown,
      updated_at: expect.stringMatching(/Z$/) as unknown,
      generator_url: 'http://prometheus.lab/graph?g0.expr=disk',
    });
  });

  it('lists silenced alerts when asked, with the silence that mutes them', async () => {
    const alerts = (await client.call(
      'alerts',
      { active: false, silenced: true, filter: ['service="lab-api"'] },
      signal(),
    )) as AmAlert[];
    expect(alerts).toEqual([
      expect.objectContaining({
        name: 'LabNoisy',
        status: { state: 'suppressed', silenced_by: [silenceId], inhibited_by: [] },
        generator_url: null,
      }),
    ]);
    const filtered = (await client.call(
      'alerts',
      { silenced: true, filter: ['severity="critical"'] },
      signal(),
    )) as AmAlert[];
    expect(filtered.map((a) => a.name)).toEqual(['LabDiskFull']);
  });

  it('lists the silence', async () => {
    const silences = (await client.call('silences', {}, signal())) as AmSilence[];
    expect(silences).toContainEqual({
      id: silenceId,
      status: 'active',
      matchers: [{ name: 'alertname', value: 'LabNoisy', is_regex: false, is_equal: true }],
      starts_at: expect.stringMatching(/Z$/) as unknown,
      ends_at: expect.stringMatching(/Z$/) as unknown,
      created_by: 'lab-test',
      comment: 'noisy during the test',
    });
  });

  it("turns a bad filter into an Error carrying Alertmanager's message", async () => {
    const err = (await client
      .call('alerts', { filter: ['not a matcher{'] }, signal())
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/^alertmanager alerts failed: HTTP 400: \S/);
  });

  it('checks arguments', async () => {
    await expect(client.call('alerts', { active: 'yes' }, signal())).rejects.toThrow(
      /argument active/,
    );
    await expect(client.call('alerts', { filter: [1] }, signal())).rejects.toThrow(
      /argument filter/,
    );
    await expect(client.call('alerts', { filter: 'a="b"\nc' }, signal())).rejects.toThrow(
      /argument filter/,
    );
    await expect(client.call('expire_silence', {}, signal())).rejects.toThrow(/no operation/);
  });
});

describe('alertmanager kind when the server misbehaves', () => {
  it('fails fast when nothing listens', async () => {
    const port = await freePort();
    const dead = alertmanagerKind.create({ url: `http://127.0.0.1:${String(port)}` });
    const started = Date.now();
    const err = (await dead.health(AbortSignal.timeout(5000)).catch((e: unknown) => e)) as Error;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(
      /cannot reach Alertmanager at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
    );
  });

  it('gives up when the signal times out on a server that never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => sockets.push(s));
    const port = await listen(silent);
    try {
      const hung = alertmanagerKind.create({ url: `http://127.0.0.1:${String(port)}` });
      const started = Date.now();
      const err = (await hung.health(AbortSignal.timeout(300)).catch((e: unknown) => e)) as Error;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(err.name).toBe('TimeoutError');
      await expect(hung.call('alerts', {}, AbortSignal.timeout(300))).rejects.toMatchObject({
        name: 'TimeoutError',
      });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('sends credentials as headers and never puts them in answers or errors', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const fake = createHttpServer((req, res) => {
      seen.push(req.headers);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/v2/status') {
        res.end('{"versionInfo":{"version":"9.9.9"},"uptime":"2024-01-01T00:00:00Z"}');
      } else if (req.url?.startsWith('/api/v2/silences') === true) {
        res.writeHead(302, { location: 'http://elsewhere.invalid/login' }).end();
      } else {
        res.statusCode = 500;
        res.end('"broken on purpose"');
      }
    });
    const port = await listen(fake);
    try {
      const url = `http://127.0.0.1:${String(port)}`;
      const bearer = alertmanagerKind.create({ url, bearer_token: new Secret('tok-secret-1') });
      const health = await bearer.health(signal());
      expect(health).toMatchObject({ ok: true });
      expect(health.detail).toMatch(/^Alertmanager 9\.9\.9, \d+ ms$/);
      expect(seen[0]?.authorization).toBe('Bearer tok-secret-1');
      const err = (await bearer.call('alerts', {}, signal()).catch((e: unknown) => e)) as Error;
      expect(err.message).toBe('alertmanager alerts failed: HTTP 500: broken on purpose');
      expect(seen[1]?.authorization).toBe('Bearer tok-secret-1');
      const redirect = (await bearer
        .call('silences', {}, signal())
        .catch((e: unknown) => e)) as Error;
      expect(redirect.message).toMatch(/redirects \(HTTP 302 to http:\/\/elsewhere\.invalid/);
      expect(
        JSON.stringify(health) + err.message + String(err.stack) + redirect.message,
      ).not.toContain('tok-secret');

      const basic = alertmanagerKind.create({
        url,
        basic_user: 'ops',
        basic_password: new Secret('pw-secret-2'),
      });
      await basic.health(signal());
      expect(seen[3]?.authorization).toBe(
        `Basic ${Buffer.from('ops:pw-secret-2').toString('base64')}`,
      );
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });

  it('reports an authentication failure as a failed health', async () => {
    const fake = createHttpServer((_req, res) => res.writeHead(401).end('unauthorised'));
    const port = await listen(fake);
    try {
      const c = alertmanagerKind.create({ url: `http://127.0.0.1:${String(port)}` });
      const health = await c.health(signal());
      expect(health.ok).toBe(false);
      expect(health.detail).toMatch(/^HTTP 401 from \/api\/v2\/status .*check bearer/);
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });
});
