// The mode follows the connections: configuring until the first connection's health check
// passes, operating then, configuring again once no working connection is left. Channels and
// directories do not count: they watch nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, buildTestServer, type TestServer } from '../testing/test-server.js';

let server: TestServer;
let target: Server;
let url = '';
beforeAll(async () => {
  server = await buildTestServer();
  target = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((target.address() as AddressInfo).port)}/`;
});
afterAll(async () => {
  await server.cleanup();
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

const mode = async (): Promise<string> =>
  (await server.app.inject({ method: 'GET', url: '/v1/status' })).json<{ mode: string }>().mode;

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('mode and connections', () => {
  it('is configuring without a connection, and a failing one does not change that', async () => {
    expect(await mode()).toBe('configuring');
    const res = await server.app.inject({
      method: 'PUT',
      url: '/v1/connectors/nowhere',
      headers: asAdmin(),
      payload: { kind: 'http', settings: { url: 'http://127.0.0.1:9/' }, timeout_s: 2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    await eventually(async () => {
      const list = (
        await server.app.inject({ method: 'GET', url: '/v1/connectors', headers: asAdmin() })
      ).json<{ connectors: { name: string; last_health: { ok: boolean } | null }[] }>();
      return list.connectors.find((c) => c.name === 'nowhere')?.last_health !== null;
    });
    expect(await mode()).toBe('configuring');
  });

  it('stays configuring with only a working approval channel: it watches nothing', async () => {
    const res = await server.app.inject({
      method: 'PUT',
      url: '/v1/connectors/hook',
      headers: asAdmin(),
      payload: { kind: 'webhook', settings: { url } },
    });
    expect(res.statusCode, res.body).toBe(200);
    await eventually(async () => {
      const list = (
        await server.app.inject({ method: 'GET', url: '/v1/connectors', headers: asAdmin() })
      ).json<{ connectors: { name: string; last_health: { ok: boolean } | null }[] }>();
      return list.connectors.find((c) => c.name === 'hook')?.last_health?.ok === true;
    });
    expect(await mode()).toBe('configuring');
    await server.app.inject({ method: 'DELETE', url: '/v1/connectors/hook', headers: asAdmin() });
  });

  it('moves to operating when the first connection works, and back when it is removed', async () => {
    const res = await server.app.inject({
      method: 'PUT',
      url: '/v1/connectors/web',
      headers: asAdmin(),
      payload: { kind: 'http', settings: { url } },
    });
    expect(res.statusCode, res.body).toBe(200);
    await eventually(async () => (await mode()) === 'operating');
    const doctor = (
      await server.app.inject({ method: 'GET', url: '/v1/doctor?fresh=1', headers: asAdmin() })
    ).json<{ checks: { check: string; status: string }[] }>();
    expect(doctor.checks.find((c) => c.check === 'main')?.status).toBe('ok');

    const del = await server.app.inject({
      method: 'DELETE',
      url: '/v1/connectors/web',
      headers: asAdmin(),
    });
    expect(del.statusCode).toBe(200);
    await eventually(async () => (await mode()) === 'configuring');
  });
});
