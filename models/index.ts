// The public surface of models/: other folders import only this file. The server passes the
// values already parsed by server/config.ts (config.model, config.s1); nothing here reads env.
import { withCassette } from './cassette.js';
import type { CassetteMode } from './cassette.js';
import { withCeiling } from './ceiling.js';
import type { CeilingClient } from './ceiling.js';
import { chatBody, createOpenAiClient } from './openai.js';
import type { FetchLike } from './openai.js';
import { ModelError } from './types.js';
import type { ModelClient, ModelClock } from './types.js';

export { ModelError, systemClock } from './types.js';
export type {
  JsonSchema,
  ModelAnswer,
  ModelClient,
  ModelClock,
  ModelErrorKind,
  ModelRequest,
  ModelUsage,
} from './types.js';
export type { CeilingClient, CeilingState } from './ceiling.js';
export type { CassetteMode } from './cassette.js';
export type { FetchLike } from './openai.js';
export { validate } from './validate.js';

export interface ModelClientOptions {
  /** Endpoint; may be null only when every answer comes from a cassette (replay). */
  url: string | null;
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
    const ceiling = client;
    return { call: (request, signal) => taped.call(request, signal), state: () => ceiling.state() };
  }
  if (cassetteDir || options.replay) {
    throw new Error('a cassette needs both a directory and a mode (record, replay or auto)');
  }
  return client;
}
