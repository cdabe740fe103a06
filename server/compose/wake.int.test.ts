// Commits wake the orchestrator: an alert posted over HTTP to a real server (real socket,
// real SQLite file) gets its investigation.started at once, not at the next poll. The poll
// is made a minute long here, so only the wake can start the investigation in time.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from './index.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import {
  ADMIN_TOKEN,
  alertmanagerBody,
  INGEST_TOKEN,
  makeDataDir,
  testEnv,
} from '../testing/test-server.js';

const POLL_MS = 60_000;
let built: BuiltApp;
let base = '';
let dir = '';
let target: Server;

async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const call = async (method: string, path: string, token: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  target = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((target.address() as AddressInfo).port)}/`;
  const made = makeDataDir();
  dir = made.dir;
  const env = testEnv(made.dir, made.machineIdFile);
  const config = loadConfig(env, { port: 0, bind: '127.0.0.1' });
  built = await buildApp(config, {
    log: createLogger(config.logLevel),
    env,
    orchestratorPollMs: POLL_MS,
  });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${String((built.app.server.address() as AddressInfo).port)}`;
  const put = await call('PUT', '/v1/connectors/web', ADMIN_TOKEN, {
    kind: 'http',
    settings: { url, service: 'web' },
  });
  expect(put.status).toBe(200);
  await eventually('operating', async () => {
    const res = await call('GET', '/v1/status', ADMIN_TOKEN);
    return ((await res.json()) as { mode: string }).mode === 'operating' || undefined;
  });
}, 30_000);

afterAll(async () => {
  await built.close();
  await new Promise<void>((resolve) => target.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('commits wake the orchestrator', () => {
  it('starts the investigation of an alert posted over HTTP well before the next poll', async () => {
    const sent = Date.now();
    const res = await call(
      'POST',
      '/v1/alerts/alertmanager',
      INGEST_TOKEN,
      alertmanagerBody({ name: 'WebDown', service: 'web', fingerprint: 'web-down' }),
    );
    expect(res.status).toBe(202);
    const posted = (await res.json()) as { signals: { episode_id: string | null }[] };
    const id = posted.signals[0]?.episode_id ?? '';
    expect(id).not.toBe('');
    await eventually('investigation.started', () =>
      Promise.resolve(
        built.runtime.reader
          .list({ trace: id, order: 'asc', limit: 100 })
          .events.some((e) => e.type === 'investigation.started') || undefined,
      ),
    );
    expect(Date.now() - sent).toBeLessThan(POLL_MS / 10);
  }, 20_000);
});
