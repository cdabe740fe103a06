// Fakes and fixtures shared by the models/ tests (not exported from index.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelClientOptions } from './index.js';
import { createLocalClient } from './local/runtime.js';
import type { LocalClient } from './local/runtime.js';
import { writeTinyGguf } from './testing/tiny-gguf.js';
import type { ModelAnswer, ModelClient, ModelClock, ModelRequest } from './types.js';

export function fakeClock(iso: string): ModelClock & { set(iso: string): void } {
  let now = Date.parse(iso);
  return {
    now: () => now,
    set(next: string) {
      now = Date.parse(next);
    },
  };
}

export const request: ModelRequest = {
  purpose: 's1.enough',
  system: 'You judge evidence.',
  user: 'Is this enough?',
  schema: {
    type: 'object',
    required: ['enough'],
    additionalProperties: false,
    properties: { enough: { type: 'string', enum: ['yes', 'no'] } },
  },
  max_tokens: 64,
};

/** createModelClient options with no cassette, no ceiling and one slot; tests override. */
export const clientOptions: ModelClientOptions = {
  url: 'http://model.test/v1',
  model: 'tiny',
  key: null,
  extra: null,
  timeoutS: 5,
  concurrency: 1,
  dailyTokens: 0,
  cassetteDir: null,
  replay: null,
};

/**
 * A request for the tiny model (testing/tiny-gguf.ts): an enum and a bounded string, so a
 * grammar-constrained answer fits in max_tokens.
 */
export const verdictRequest: ModelRequest = {
  purpose: 's1.enough',
  system: 'You judge evidence.',
  user: 'Is this enough?',
  schema: {
    type: 'object',
    required: ['verdict', 'why'],
    additionalProperties: false,
    properties: {
      verdict: { type: 'string', enum: ['enough', 'more', 'unsure'] },
      why: { type: 'string', maxLength: 24 },
    },
  },
  max_tokens: 128,
};

/** The tiny model written to a fresh temporary folder and loaded on the CPU; close removes both. */
export async function openTinyModel(): Promise<{
  dir: string;
  client: LocalClient;
  close(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-tiny-'));
  const modelPath = await writeTinyGguf(join(dir, 'tiny.gguf'));
  const client = createLocalClient({ modelPath, gpu: false, threads: 1 });
  return {
    dir,
    client,
    close: async () => {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A chat completions response body with `value` as its JSON content. */
export function completion(value: unknown, prompt = 10, completionTokens = 5): string {
  return JSON.stringify({
    model: 'tiny',
    choices: [{ message: { role: 'assistant', content: JSON.stringify(value) } }],
    usage: { prompt_tokens: prompt, completion_tokens: completionTokens },
  });
}

/** A client that answers `value` and counts its calls. */
export function stubClient(value: unknown, tokens = 15): ModelClient & { calls: number } {
  const stub = {
    calls: 0,
    async call(_request: ModelRequest): Promise<ModelAnswer> {
      stub.calls += 1;
      return {
        value,
        usage: { prompt_tokens: tokens - 5, completion_tokens: 5 },
        model: 'stub',
        seconds: 0.01,
        cached: false,
      };
    },
  };
  return stub;
}
