// Secret references of connectors name only files under the secrets folders the operator
// declares (SVC_SECRETS_DIRS), never the service's own files or SVC_* variables: otherwise an
// admin could send the owner's admin token or the install key to a URL of their choosing.
// A real server on a real data folder, and a real HTTP listener standing for that URL.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  asAdmin,
  buildTestServer,
  makeDataDir,
  type TestServer,
} from '../testing/test-server.js';

/** The address an admin chose: records every Authorization header it is sent. */
let listener: Server;
let url: string;
const seen: string[] = [];
beforeAll(async () => {
  listener = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'success', data: { version: '2.53.0' } }));
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((listener.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.cleanup();
  seen.length = 0;
});

async function serve(env: Record<string, string> = {}, dir?: string) {
  const s = await buildTestServer({ env, ...(dir !== undefined && { dir }) });
  servers.push(s);
  return s;
}

const prom = (token: unknown) => ({
  kind: 'prometheus',
  settings: { url, bearer_token: token },
  timeout_s: 5,
});

function send(s: TestServer, method: 'PUT' | 'POST', path: string, body: unknown) {
  return s.app.inject({
    method,
    url: path,
    headers: { ...asAdmin(), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

describe('connector secret references', () => {
  it("never send the admin token, the install key or an SVC_* variable to an admin's URL", async () => {
    const s = await serve();
    const data = s.env['SVC_DATA'] ?? '';
    const before = s.runtime.ledgerStore.head().seq;
    const refs = [
      { env: 'SVC_ADMIN_TOKEN' },
      { env: 'SVC_INGEST_TOKEN' },
      { file: join(data, 'install-key.pem') },
      { file: join(data, 'svc.db') },
      // Through a declared folder and back out again.
      { file: `/run/secrets/../..${data}/install-key.pem` },
    ];
    for (const ref of refs) {
      for (const [method, path] of [
        ['POST', '/v1/connectors/test'],
        ['PUT', '/v1/connectors/prom'],
      ] as const) {
        const res = await send(s, method, path, prom(ref));
        expect(res.statusCode, `${method} ${JSON.stringify(ref)}: ${res.body}`).toBe(400);
        const body = res.json<{ field: string; message: string }>();
        expect(body.field).toBe('settings.bearer_token');
        expect(body.message).toContain('file' in ref ? ref.file : ref.env);
      }
    }
    expect(seen).toEqual([]);
    expect(JSON.stringify(seen)).not.toContain(ADMIN_TOKEN);
    expect(s.runtime.ledgerStore.head().seq).toBe(before);
  });

  it('accepts a file under a declared secrets folder, a typed-in secret, and other variables', async () => {
    const { dir } = makeDataDir();
    const folder = join(dir, 'run-secrets');
    mkdirSync(folder);
    writeFileSync(join(folder, 'prom-token'), 'token-from-the-operator\n');
    const s = await serve({ SVC_SECRETS_DIRS: folder, PROM_TOKEN: 'token-from-env' }, dir);

    const file = await send(
      s,
      'POST',
      '/v1/connectors/test',
      prom({ file: join(folder, 'prom-token') }),
    );
    expect(file.json(), file.body).toMatchObject({ ok: true });
    const env = await send(s, 'POST', '/v1/connectors/test', prom({ env: 'PROM_TOKEN' }));
    expect(env.json(), env.body).toMatchObject({ ok: true });
    expect(seen).toEqual(['Bearer token-from-the-operator', 'Bearer token-from-env']);

    // A typed-in secret goes to the service's own file; sending back its reference keeps it.
    const typed = await send(s, 'PUT', '/v1/connectors/prom', prom({ value: 'typed-in' }));
    expect(typed.statusCode, typed.body).toBe(200);
    const ref = typed.json<{ settings: { bearer_token: { file: string } } }>().settings
      .bearer_token;
    const again = await send(s, 'PUT', '/v1/connectors/prom', prom(ref));
    expect(again.statusCode, again.body).toBe(200);
    // …but not as another connector's, nor another setting's.
    const other = await send(s, 'PUT', '/v1/connectors/other', prom(ref));
    expect(other.statusCode, other.body).toBe(400);
  });

  it('refuses a link in a declared folder that leads to the data folder', async () => {
    const { dir } = makeDataDir();
    const folder = join(dir, 'run-secrets');
    mkdirSync(folder);
    const s = await serve({ SVC_SECRETS_DIRS: folder }, dir);
    symlinkSync(join(s.env['SVC_DATA'] ?? '', 'install-key.pem'), join(folder, 'innocent'));
    const res = await send(
      s,
      'POST',
      '/v1/connectors/test',
      prom({ file: join(folder, 'innocent') }),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(seen).toEqual([]);
  });

  it('a saved connector whose reference is no longer allowed starts with a problem naming it', async () => {
    const { dir } = makeDataDir();
    const folder = join(dir, 'run-secrets');
    mkdirSync(folder);
    writeFileSync(join(folder, 'prom-token'), 'token-from-the-operator\n');
    const first = await serve({ SVC_SECRETS_DIRS: folder }, dir);
    const saved = await send(
      first,
      'PUT',
      '/v1/connectors/prom',
      prom({ file: join(folder, 'prom-token') }),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    await first.stop();
    servers.splice(servers.indexOf(first), 1);
    seen.length = 0;

    // The operator no longer declares that folder: the start goes on, the connector is not built.
    const second = await serve({ SVC_SECRETS_DIRS: join(dir, 'elsewhere') }, dir);
    const list = await second.app.inject({
      method: 'GET',
      url: '/v1/connectors',
      headers: asAdmin(),
    });
    const prom1 = list
      .json<{ connectors: { name: string; problem: string | null }[] }>()
      .connectors.find((c) => c.name === 'prom');
    expect(prom1?.problem).toContain(join(folder, 'prom-token'));
    expect(prom1?.problem).toContain('bearer_token');
    expect(seen).toEqual([]);
  });

  it('a connectors file naming SVC_ADMIN_TOKEN does not stop the start; the connector shows why', async () => {
    const { dir } = makeDataDir();
    writeFileSync(
      join(dir, 'connectors.json'),
      JSON.stringify({ connectors: { prom: prom({ env: 'SVC_ADMIN_TOKEN' }) } }),
    );
    const s = await serve({}, dir);
    const list = await s.app.inject({ method: 'GET', url: '/v1/connectors', headers: asAdmin() });
    const c = list.json<{ connectors: { name: string; problem: string | null }[] }>().connectors[0];
    expect(c?.problem).toContain('SVC_ADMIN_TOKEN');
    await new Promise((resolve) => setTimeout(resolve, 300)); // a health check would have run
    expect(seen).toEqual([]);
  });
});
