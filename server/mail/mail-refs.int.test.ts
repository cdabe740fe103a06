// The mail settings' secret references follow the connectors' rule (SVC_SECRETS_DIRS): an
// admin chooses the SMTP server or mail API, so a password naming the owner's admin token or
// the install key would send it there. A real server on a real data folder; a real TCP
// listener stands for the admin's SMTP server and counts who reaches it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asAdmin, buildTestServer, makeDataDir, type TestServer } from '../testing/test-server.js';

let listener: Server;
let port: number;
let reached = 0;
const sockets = new Set<Socket>();
beforeAll(async () => {
  listener = createServer((socket) => {
    reached++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write('220 smtp.test ESMTP\r\n');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.cleanup();
  reached = 0;
});

async function serve(env: Record<string, string> = {}, dir?: string) {
  const s = await buildTestServer({ env, ...(dir !== undefined && { dir }) });
  servers.push(s);
  return s;
}

const smtp = (password: unknown) => ({
  transport: 'smtp',
  timeout_s: 2,
  smtp: {
    host: '127.0.0.1',
    port,
    security: 'starttls',
    from: 'svc@lab.test',
    username: 'svc',
    password,
  },
});

const put = (s: TestServer, body: unknown) =>
  s.app.inject({
    method: 'PUT',
    url: '/v1/settings/mail',
    headers: { ...asAdmin(), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

describe('mail secret references', () => {
  it("refuse the service's own files and SVC_* variables with a 400 naming the field", async () => {
    const s = await serve();
    const data = s.env['SVC_DATA'] ?? '';
    const before = s.runtime.ledgerStore.head().seq;
    for (const ref of [
      { env: 'SVC_ADMIN_TOKEN' },
      { file: join(data, 'install-key.pem') },
      { file: '/etc/passwd' },
    ]) {
      const res = await put(s, smtp(ref));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ field: 'smtp.password' });
      expect(res.json<{ message: string }>().message).toContain('file' in ref ? ref.file : ref.env);
    }
    const api = await put(s, {
      transport: 'api',
      api: {
        url: `http://127.0.0.1:${String(port)}/send`,
        from: 'a@b.test',
        token: { env: 'SVC_INGEST_TOKEN' },
      },
    });
    expect(api.statusCode, api.body).toBe(400);
    expect(api.json()).toMatchObject({ field: 'api.token' });
    expect(s.runtime.ledgerStore.head().seq).toBe(before);
    expect(reached).toBe(0);
  });

  it('a stored reference no longer allowed is not read: the test mail fails naming it', async () => {
    const { dir } = makeDataDir();
    const folder = join(dir, 'run-secrets');
    mkdirSync(folder);
    writeFileSync(join(folder, 'smtp'), 'pw\n');
    const first = await serve({ SVC_SECRETS_DIRS: folder }, dir);
    const saved = await put(first, smtp({ file: join(folder, 'smtp') }));
    expect(saved.statusCode, saved.body).toBe(200);
    await first.stop();
    servers.splice(servers.indexOf(first), 1);

    const second = await serve({ SVC_SECRETS_DIRS: join(dir, 'elsewhere') }, dir);
    const res = await second.app.inject({
      method: 'POST',
      url: '/v1/settings/mail/test',
      headers: { ...asAdmin(), 'content-type': 'application/json' },
      payload: JSON.stringify({ to: 'ann@lab.test' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: false });
    expect(res.json<{ detail: string }>().detail).toContain(join(folder, 'smtp'));
    expect(reached).toBe(0);
  });
});
