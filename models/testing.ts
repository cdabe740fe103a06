// Fakes shared by the models/ tests (not exported from index.ts).
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
