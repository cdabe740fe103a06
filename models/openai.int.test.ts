// The endpoint client against a real HTTP server on 127.0.0.1 that speaks the OpenAI chat
// completions protocol: real sockets, real timeouts, real files for cassettes.
import { once } from 'node:events';
import { mkdtemp, readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient, ModelError } from './index.js';
import type { ModelClientOptions, ModelRequest } from './index.js';
import { fakeClock, request } from './testing.js';

const KEY = 'sk-int-secret-5f2a9c';

interface Fake {
  server: Server;
  url: string;
  /** 'slow' requests in flight now, and the most seen at once. */
  slow: number;
  peak: number;
  requests: number;
  bodies: Array<Record<string, unknown>>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Behaviour is chosen by the user message: 'sleep', 'fail', 'slow', else answer at once. */
async function startFake(): Promise<Fake> {
  const fake: Fake = {
    server: createServer(),
    url: '',
    slow: 0,
    peak: 0,
    requests: 0,
    bodies: [],
  };
  fake.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      fake.requests += 1;
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          messages: Array<{ content: string }>;
        } & Record<string, unknown>;
        fake.bodies.push(body);
        const user = body.messages[1]?.content ?? '';
        if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
          res.writeHead(404).end('not found');
          return;
        }
        if (user === 'sleep') await sleep(3000);
        if (user === 'slow') {
          // Counted apart: an abandoned 'sleep' request may still be running server-side.
          fake.slow += 1;
          fake.peak = Math.max(fake.peak, fake.slow);
          await sleep(60);
          fake.slow -= 1;
        }
        if (user === 'fail') {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`internal error; you sent ${req.headers.authorization ?? ''}`);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            model: 'fake-model',
            choices: [
              {
                index: 0,
                finish_reason: 'stop',
                message: { role: 'assistant', content: JSON.stringify({ enough: 'yes' }) },
              },
            ],
            usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 },
          }),
        );
      } catch {
        if (!res.headersSent) res.writeHead(400);
        res.end();
      }
    })();
  });
  fake.server.listen(0, '127.0.0.1');
  await once(fake.server, 'listening');
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  return fake;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

const ask = (user: string): ModelRequest => ({ ...request, user });

describe('OpenAI-compatible endpoint over real HTTP', () => {
  let fake: Fake;
  let options: ModelClientOptions;

  beforeAll(async () => {
    fake = await startFake();
    options = {
      url: fake.url, // without /v1: the client adds it
      model: 'fake-model',
      key: KEY,
      extra: { temperature: 0 },
      timeoutS: 0.5,
      concurrency: 3,
      dailyTokens: 0,
      cassetteDir: null,
      replay: null,
    };
  });
  afterAll(async () => {
    if (fake.server.listening) await stop(fake.server);
  });

  it('gets a schema-valid answer with usage', async () => {
    const answer = await createModelClient(options).call(ask('hello'));
    expect(answer).toMatchObject({
      value: { enough: 'yes' },
      usage: { prompt_tokens: 30, completion_tokens: 7 },
      model: 'fake-model',
      cached: false,
    });
    expect(answer.seconds).toBeGreaterThanOrEqual(0);
    expect(fake.bodies.at(-1)).toMatchObject({ model: 'fake-model', temperature: 0 });
  });

  it('abandons a call that outlives the timeout', async () => {
    const started = Date.now();
    const err = await createModelClient(options)
      .call(ask('sleep'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: 'timeout', purpose: 's1.enough' });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('reports a 500 with its status, never the key', async () => {
    const err = await createModelClient({ ...options, url: `${fake.url}/v1` })
      .call(ask('fail'))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'refused', status: 500 });
    const message = (err as Error).message;
    expect(message).toContain('internal error');
    expect(message).toContain('[redacted]');
    expect(message).not.toContain(KEY);
    expect(JSON.stringify(err)).not.toContain(KEY);
  });

  it('keeps in-flight calls within the concurrency bound', async () => {
    const client = createModelClient({ ...options, timeoutS: 10 });
    fake.peak = 0;
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.call(ask('slow'))));
    expect(answers).toHaveLength(10);
    expect(fake.peak).toBe(3);
  });

  it('stops at the daily ceiling and starts again at 00:00 UTC', async () => {
    const clock = fakeClock('2026-06-30T23:59:00Z');
    const client = createModelClient({ ...options, dailyTokens: 50, clock });
    await client.call(ask('a'));
    await client.call(ask('b')); // 74 tokens ≥ 50
    const before = fake.requests;
    await expect(client.call(ask('c'))).rejects.toMatchObject({
      kind: 'ceiling_spent',
      until: '2026-07-01T00:00:00.000Z',
    });
    expect(fake.requests).toBe(before);
    clock.set('2026-07-01T00:00:00Z');
    expect((await client.call(ask('c'))).value).toEqual({ enough: 'yes' });
    expect(client.state()).toEqual({ day: '2026-07-01', used: 37, limit: 50 });
  });

  it('records a cassette, then replays it exactly with the server stopped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'models-int-'));
    const recorded = await createModelClient({
      ...options,
      cassetteDir: dir,
      replay: 'record',
    }).call(ask('taped'));
    expect(await readdir(dir)).toHaveLength(1);
    await stop(fake.server);

    const replay = createModelClient({ ...options, cassetteDir: dir, replay: 'replay' });
    expect(await replay.call(ask('taped'))).toEqual({ ...recorded, cached: true });

    const miss = await replay.call(ask('never recorded')).catch((e: unknown) => e);
    expect(miss).toMatchObject({ kind: 'cassette_miss', purpose: 's1.enough' });
    expect((miss as Error).message).toMatch(/"s1\.enough" \(key [0-9a-f]{64}\)/);
  });
});
