import { describe, expect, it } from 'vitest';
import { chatBody, completionsUrl, createOpenAiClient, scrub } from './openai.js';
import type { FetchLike } from './openai.js';
import { completion, request } from './testing.js';
import { ModelError } from './types.js';

const KEY = 'sk-test-secret-123';

function client(fetch: FetchLike, extra: Record<string, unknown> | null = null) {
  return createOpenAiClient({
    url: 'http://model.test',
    model: 'tiny',
    key: KEY,
    extra,
    timeoutS: 1,
    concurrency: 2,
    fetch,
  });
}

describe('openai client', () => {
  it('accepts the URL with or without /v1', () => {
    expect(completionsUrl('http://h:1')).toBe('http://h:1/v1/chat/completions');
    expect(completionsUrl('http://h:1/v1/')).toBe('http://h:1/v1/chat/completions');
  });

  it('sends the schema, key and extra, and reads the answer and usage', async () => {
    let seen: { url: string; init: RequestInit } | null = null;
    const answer = await client(
      async (url, init) => {
        seen = { url, init };
        return new Response(completion({ enough: 'yes' }, 11, 4));
      },
      { temperature: 0, model: 'ignored' },
    ).call(request);
    expect(answer).toMatchObject({
      value: { enough: 'yes' },
      usage: { prompt_tokens: 11, completion_tokens: 4 },
      model: 'tiny',
      cached: false,
    });
    const sent = seen as unknown as { url: string; init: RequestInit };
    expect(sent.url).toBe('http://model.test/v1/chat/completions');
    expect((sent.init.headers as Record<string, string>)['authorization']).toBe(`Bearer ${KEY}`);
    const body = JSON.parse(sent.init.body as string) as Record<string, unknown>;
    expect(body).toEqual(chatBody(request, 'tiny', { temperature: 0, model: 'ignored' }));
    expect(body['model']).toBe('tiny');
    expect(body['temperature']).toBe(0);
    expect(body['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 's1_enough', schema: request.schema, strict: true },
    });
  });

  it('refuses an answer outside its schema', async () => {
    const err = await client(async () => new Response(completion({ enough: 'maybe' })))
      .call(request)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: 'invalid_answer', purpose: 's1.enough' });
  });

  it('reports an HTTP error with its status and without the key', async () => {
    const err = await client(async () => new Response(`bad key Bearer ${KEY}`, { status: 401 }))
      .call(request)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'refused', status: 401 });
    expect(String((err as Error).message)).not.toContain(KEY);
    expect(scrub(`a ${KEY} b ${KEY}`, KEY)).toBe('a [redacted] b [redacted]');
  });

  it('turns the deadline into a timeout error', async () => {
    const hang: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
      });
    await expect(client(hang).call(request)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('passes a caller abort through as is', async () => {
    const controller = new AbortController();
    controller.abort(new Error('episode cancelled'));
    await expect(
      client(async () => new Response(completion({ enough: 'yes' }))).call(
        request,
        controller.signal,
      ),
    ).rejects.toThrow('episode cancelled');
  });
});
