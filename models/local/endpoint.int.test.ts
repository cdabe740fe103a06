// The project's own endpoint client (createModelClient) against the project's own local
// endpoint, serving the tiny model through the real node-llama-cpp CPU path.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient, validate } from '../index.js';
import type { ModelRequest } from '../index.js';
import { writeTinyGguf } from '../testing/tiny-gguf.js';
import { startLocalEndpoint } from './endpoint.js';
import type { LocalEndpoint } from './endpoint.js';
import { createLocalClient } from './runtime.js';
import type { LocalClient } from './runtime.js';

const request: ModelRequest = {
  purpose: 's1.safe',
  system: 'You judge whether an action is safe.',
  user: 'Restart nginx on web-1?',
  schema: {
    type: 'object',
    required: ['safe', 'reason'],
    additionalProperties: false,
    properties: {
      safe: { type: 'string', enum: ['yes', 'no'] },
      reason: { type: 'string', maxLength: 16 },
    },
  },
  max_tokens: 96,
};

let dir: string;
let local: LocalClient;
let endpoint: LocalEndpoint;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-endpoint-'));
  const modelPath = await writeTinyGguf(join(dir, 'tiny.gguf'));
  local = createLocalClient({ modelPath, gpu: false, threads: 1 });
  endpoint = await startLocalEndpoint({ client: local, port: 0, host: '127.0.0.1', key: 'k-1' });
});

afterAll(async () => {
  await endpoint.close();
  await local.close();
  await rm(dir, { recursive: true, force: true });
});

const options = {
  model: 'local',
  extra: null,
  timeoutS: 30,
  concurrency: 1,
  dailyTokens: 0,
  cassetteDir: null,
  replay: null,
};

describe('local OpenAI-compatible endpoint', () => {
  it('answers the endpoint client with a schema-valid value and token counts', async () => {
    const client = createModelClient({ ...options, url: endpoint.url, key: 'k-1' });
    const answer = await client.call(request);
    expect(validate(request.schema, answer.value)).toEqual([]);
    expect(answer.model).toBe('tiny-test');
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(answer.usage.completion_tokens).toBeGreaterThan(0);
    expect((await client.call(request)).value).toEqual(answer.value);
  });

  it('refuses a wrong key and a request without a JSON schema', async () => {
    const wrong = createModelClient({ ...options, url: endpoint.url, key: 'nope' });
    await expect(wrong.call(request)).rejects.toMatchObject({ kind: 'refused', status: 401 });
    const response = await fetch(`${endpoint.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k-1', 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 }),
    });
    expect(response.status).toBe(400);
  });
});
