// The project's own endpoint client (createModelClient) against the project's own local
// endpoint, serving the tiny model through the real node-llama-cpp CPU path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelClient, validate } from '../index.js';
import { clientOptions, openTinyModel, verdictRequest as request } from '../testing.js';
import { startLocalEndpoint } from './endpoint.js';
import type { LocalEndpoint } from './endpoint.js';

let tiny: Awaited<ReturnType<typeof openTinyModel>>;
let endpoint: LocalEndpoint;

beforeAll(async () => {
  tiny = await openTinyModel();
  endpoint = await startLocalEndpoint({
    client: tiny.client,
    port: 0,
    host: '127.0.0.1',
    key: 'k-1',
  });
});

afterAll(async () => {
  await endpoint.close();
  await tiny.close();
});

// The tiny model on the CPU is slow on a small test machine.
const options = { ...clientOptions, model: 'local', timeoutS: 30 };

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
