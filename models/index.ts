// The public surface of models/: other folders import only this file. The server passes the
// values already parsed by server/config.ts (config.model, config.s1); nothing here reads env.
import { withCassette } from './cassette.js';
import type { CassetteMode } from './cassette.js';
import { withCeiling } from './ceiling.js';
import type { CeilingClient } from './ceiling.js';
import { withLimits } from './limits.js';
import type { LocalEndpoint, LocalEndpointOptions } from './local/endpoint.js';
import type { LocalClient, LocalClientOptions } from './local/runtime.js';
import { chatBody, createOpenAiClient } from './openai.js';
import type { FetchLike } from './openai.js';
import { ModelError } from './types.js';
import type { ModelClient, ModelClock } from './types.js';

export { ModelError } from './types.js';
export type { JsonSchema, ModelAnswer, ModelClient, ModelClock, ModelRequest } from './types.js';
export type { CeilingClient, CeilingState } from './ceiling.js';
export type { FetchLike } from './openai.js';
export type { LocalClient } from './local/runtime.js';
export type { LocalEndpoint } from './local/endpoint.js';
export { validate } from './validate.js';

export interface ModelClientOptions {
  /** Endpoint; may be null when `transport` is given or every answer is replayed. */
  url: string | null;
  /**
   * The model itself instead of an endpoint (the local runtime): used when `url` is null,
   * behind the same cassette, ceiling, timeout and concurrency limit.
   */
  transport?: ModelClient;
  model: string;
  key: string | null;
  extra: Readonly<Record<string, unknown>> | null;
  timeoutS: number;
  concurrency: number;
  /** 0: no ceiling. */
  dailyTokens: number;
  cassetteDir: string | null;
  replay: CassetteMode | null;
  clock?: ModelClock;
  fetch?: FetchLike;
}

/**
 * cassette → ceiling → endpoint. The cassette answers first, so a replayed answer (which
 * costs nothing) is never refused by a spent ceiling; the ceiling guards only real spend.
 * Recorded answers are counted as they are paid for.
 */
export function createModelClient(options: ModelClientOptions): CeilingClient {
  const { url, model, extra, cassetteDir } = options;
  const clock = options.clock ? { clock: options.clock } : {};
  let endpoint: ModelClient;
  if (url) {
    endpoint = createOpenAiClient({
      url,
      model,
      key: options.key,
      extra,
      timeoutS: options.timeoutS,
      concurrency: options.concurrency,
      ...clock,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } else if (options.transport) {
    endpoint = withLimits(options.transport, {
      timeoutS: options.timeoutS,
      concurrency: options.concurrency,
    });
  } else {
    if (!(cassetteDir && options.replay === 'replay')) {
      throw new Error(
        'a model endpoint URL is required unless answers are replayed from a cassette',
      );
    }
    endpoint = {
      call: (request) =>
        Promise.reject(
          new ModelError('refused', `no model endpoint for "${request.purpose}"`, {
            purpose: request.purpose,
            status: null,
          }),
        ),
    };
  }
  const client = withCeiling(endpoint, { dailyTokens: options.dailyTokens, ...clock });
  if (cassetteDir && options.replay) {
    const taped = withCassette(client, {
      dir: cassetteDir,
      mode: options.replay,
      bodyOf: (request) => chatBody(request, model, extra),
    });
    return { call: (request, signal) => taped.call(request, signal), state: () => client.state() };
  }
  if (cassetteDir || options.replay) {
    throw new Error('a cassette needs both a directory and a mode (record, replay or auto)');
  }
  return client;
}

/**
 * The local runtime (a GGUF model in a child process, see local/runtime.ts). Loaded lazily,
 * so a process that never runs a local model never loads this code or llama.cpp.
 */
export async function createLocalRuntime(options: LocalClientOptions): Promise<LocalClient> {
  const { createLocalClient } = await import('./local/runtime.js');
  return createLocalClient(options);
}

/** Serves a model client as an OpenAI-compatible endpoint (local/endpoint.ts), lazily. */
export async function startLocalEndpoint(options: LocalEndpointOptions): Promise<LocalEndpoint> {
  const endpoint = await import('./local/endpoint.js');
  return endpoint.startLocalEndpoint(options);
}
