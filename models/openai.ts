// Client for OpenAI-compatible chat completions (SVC_MODEL_URL, SVC_S1_URL). The answer is
// constrained with response_format json_schema (strict) and checked again here, because not
// every compatible server honours strict mode.
import { withLimits } from './limits.js';
import { ModelError, systemClock } from './types.js';
import type { ModelAnswer, ModelClient, ModelClock, ModelRequest } from './types.js';
import { answerValue, invalidAnswer } from './validate.js';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface OpenAiOptions {
  /** Base URL, with or without a trailing /v1. */
  url: string;
  model: string;
  /** Bearer key; never logged, never in an error message. */
  key: string | null;
  /** JSON merged into each request body (sampling options, vendor flags). */
  extra: Readonly<Record<string, unknown>> | null;
  timeoutS: number;
  concurrency: number;
  clock?: ModelClock;
  fetch?: FetchLike;
}

/** POST target: `<url>/v1/chat/completions`, whether or not the URL already ends in /v1. */
export function completionsUrl(url: string): string {
  const base = url.replace(/\/+$/, '');
  return `${/\/v1$/.test(base) ? base : `${base}/v1`}/chat/completions`;
}

/**
 * The request body exactly as sent (also what a cassette is keyed by). `extra` goes first so
 * it can add options but cannot replace the model, messages or answer schema.
 */
export function chatBody(
  request: ModelRequest,
  model: string,
  extra: Readonly<Record<string, unknown>> | null,
): Record<string, unknown> {
  return {
    ...(extra ?? {}),
    model,
    messages: [
      { role: 'system', content: request.system },
      { role: 'user', content: request.user },
    ],
    max_tokens: request.max_tokens,
    response_format: {
      type: 'json_schema',
      json_schema: { name: schemaName(request.purpose), schema: request.schema, strict: true },
    },
  };
}

/** OpenAI requires ^[a-zA-Z0-9_-]{1,64}$ for the schema name. */
function schemaName(purpose: string): string {
  return purpose.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'answer';
}

/** Removes the key from text that may have come from the endpoint (echoed headers, errors). */
export function scrub(text: string, key: string | null): string {
  return key ? text.split(key).join('[redacted]') : text;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

export function createOpenAiClient(options: OpenAiOptions): ModelClient {
  const target = completionsUrl(options.url);
  const clock = options.clock ?? systemClock;
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const { key } = options;

  async function send(request: ModelRequest, signal?: AbortSignal): Promise<ModelAnswer> {
    const started = clock.now();
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['authorization'] = `Bearer ${key}`;
    const response = await doFetch(target, {
      method: 'POST',
      headers,
      body: JSON.stringify(chatBody(request, options.model, options.extra)),
      signal: signal ?? null,
    });
    const text = await response.text();
    if (!response.ok) {
      throw new ModelError(
        'refused',
        `model endpoint answered ${response.status} for "${request.purpose}": ${scrub(text, key).slice(0, 300)}`,
        { purpose: request.purpose, status: response.status },
      );
    }
    return parseAnswer(request, text, options.model, (clock.now() - started) / 1000);
  }

  // The deadline and the slot limit are withLimits'; here only what is HTTP's own: a
  // connection failure (no status) becomes 'refused'. A failure after an abort passes on, for
  // withLimits to tell a timeout from the caller's own abort.
  const transport: ModelClient = {
    async call(request, signal) {
      try {
        return await send(request, signal);
      } catch (err) {
        if (err instanceof ModelError || signal?.aborted) throw err;
        // The message may quote the URL, never the key.
        const message = err instanceof Error ? err.message : String(err);
        throw new ModelError(
          'refused',
          `model endpoint unreachable for "${request.purpose}": ${scrub(message, key)}`,
          { purpose: request.purpose, status: null },
        );
      }
    },
  };
  return withLimits(transport, options);
}

function parseAnswer(
  request: ModelRequest,
  text: string,
  fallbackModel: string,
  seconds: number,
): ModelAnswer {
  const invalid = (why: string): ModelError => invalidAnswer(request, 'model', why);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid('is not JSON');
  }
  const b = (body ?? {}) as {
    model?: unknown;
    choices?: Array<{ message?: { content?: unknown } }>;
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  const content = b.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw invalid('has no message content');
  return {
    value: answerValue(request, content, 'model'),
    usage: {
      prompt_tokens: count(b.usage?.prompt_tokens),
      completion_tokens: count(b.usage?.completion_tokens),
    },
    model: typeof b.model === 'string' ? b.model : fallbackModel,
    seconds,
    cached: false,
  };
}
