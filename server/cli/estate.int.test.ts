// svc-core estate build | resolve as operators run them: the bundle (dist/svc-core.mjs, built
// by node build/bundle.mjs) in a child process. While the service runs, build goes through
// its API; once it is stopped, build takes the data folder itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';
import { freePort, requireBundle, runCli } from '../testing/processes.js';
import { parseAlert } from './estate.js';

requireBundle();

describe('svc-core estate', () => {
  let s: TestServer;
  let url: string;
  let port: number;

  beforeAll(async () => {
    s = await buildTestServer();
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const address = s.app.server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
    url = `http://127.0.0.1:${String(port)}`;
    const put = await s.app.inject({
      method: 'PUT',
      url: '/v1/connectors/shop',
      headers: asAdmin(),
      payload: { kind: 'http', settings: { url: 'http://127.0.0.7:8080/health' } },
    });
    expect(put.statusCode, put.body).toBe(200);
  }, 30_000);
  afterAll(async () => {
    await s.cleanup();
  });

  it('build goes through the running service: progress, each connector, a summary', async () => {
    const run = await runCli(s.env, ['estate', 'build', '--url', url]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^discovery job-[0-9a-f]+ started at ${url}$`));
    expect(lines.slice(-3)).toEqual([
      'progress 1/1: done',
      'ok    shop',
      'estate: 1 service, 0 links, 0 candidates, 1 unlinked, 0 problems',
    ]);
    // Without --url: SVC_BIND and SVC_PORT, as `health` does.
    const plain = await runCli({ ...s.env, SVC_BIND: '127.0.0.1', SVC_PORT: String(port) }, [
      'estate',
      'build',
    ]);
    expect(plain.code, plain.stderr).toBe(0);
  });

  it('build exits 1 when a connector fails, naming it', async () => {
    const put = await s.app.inject({
      method: 'PUT',
      url: '/v1/connectors/prom',
      headers: asAdmin(),
      payload: { kind: 'prometheus', settings: { url: 'http://127.0.0.1:1' }, timeout_s: 2 },
    });
    expect(put.statusCode, put.body).toBe(200);
    const run = await runCli(s.env, ['estate', 'build', '--url', url, '--json']);
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout) as {
      job: { status: string; result: { per_connector: Record<string, { status: string }> } };
    };
    expect(out.job.status).toBe('done');
    expect(out.job.result.per_connector).toMatchObject({
      shop: { status: 'ok' },
      prom: { status: 'failed' },
    });
    const closed = `http://127.0.0.1:${String(await freePort())}`;
    const down = await runCli(s.env, ['estate', 'build', '--url', closed]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^svc-core: http:\/\/127\.0\.0\.1:\d+: no answer \(connect ECONNREFUSED/,
    );
  });

  it('resolve prints the service and how; exit 1 when none, 2 on a bad ALERT', async () => {
    expect(await runCli(s.env, ['estate', 'resolve', 'instance=127.0.0.7:8080'])).toEqual({
      code: 0,
      stdout: 'shop (host instance)\n',
      stderr: '',
    });
    expect(
      await runCli(s.env, ['estate', 'resolve', '{"labels":{"job":"shop","severity":"page"}}']),
    ).toEqual({ code: 0, stdout: 'shop (label job)\n', stderr: '' });
    expect(await runCli(s.env, ['estate', 'resolve', '{"job":"shop"}', '--json'])).toEqual({
      code: 0,
      stdout: '{"service":"shop","by":"label job"}\n',
      stderr: '',
    });
    expect(await runCli(s.env, ['estate', 'resolve', 'job=nothing'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'no service: no alias, service label or host matches\n',
    });
    const bad = await runCli(s.env, ['estate', 'resolve', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('svc-core estate resolve: ALERT: "nonsense" is not key=value\n');
    const usage = await runCli(s.env, ['estate']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^svc-core estate: use build, or resolve ALERT/);
  });

  it('build runs directly against the data folder once the service is stopped', async () => {
    await s.stop();
    const run = await runCli(s.env, ['estate', 'build']);
    expect(run.code).toBe(1); // prom still fails
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^discovery job-[0-9a-f]+ started in /);
    expect(lines).toContain('ok    shop');
    expect(lines.some((l) => l.startsWith('fail  prom: '))).toBe(true);
    expect(lines.at(-2)).toBe('estate: 1 service, 0 links, 0 candidates, 1 unlinked, 1 problem');
    expect(lines.at(-1)).toMatch(/^problem connector_failed: prom: /);
  });
});

describe('parseAlert', () => {
  it('reads JSON labels, an alert with labels, or key=value pairs', () => {
    expect(parseAlert('{"job":"web","n":3}')).toEqual({ job: 'web', n: '3' });
    expect(parseAlert('{"labels":{"job":"web"},"annotations":{}}')).toEqual({ job: 'web' });
    expect(parseAlert('job=web, instance=10.0.0.1:80')).toEqual({
      job: 'web',
      instance: '10.0.0.1:80',
    });
    expect(parseAlert('url=http://x/?a=b')).toEqual({ url: 'http://x/?a=b' });
    expect(() => parseAlert('{nope')).toThrow(/not valid JSON/);
    expect(() => parseAlert('')).toThrow(/no labels/);
    expect(() => parseAlert('{}')).toThrow(/no labels/);
  });
});
