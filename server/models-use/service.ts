// The model service of the server: one client per system (null when unconfigured), and every
// call a `model.called` ledger event with the episode's trace id, its token counts and time,
// never the key and never the prompt (only its purpose). A call is bounded by the system's
// timeout here as well as in the client, so a model never stalls an episode.
import type { Writer } from '../db/writer.js';
import type { LedgerService, Projection } from '../ledger/index.js';
import { createModelClient, ModelError } from '../../models/index.js';
import type { FetchLike, ModelAnswer, ModelClient, ModelRequest } from '../../models/index.js';
import type { Config } from '../config.js';
import { modelSettings, originOf, type EndpointSettings, type ModelSystem } from './settings.js';

export const MODEL_CALLED = 'model.called';
export const INVESTIGATION_NOTE = 'investigation.note';
export const DECISION_S1 = 'decision.s1';

/** Written only by the service: POST /v1/events refuses these types. */
export const modelUseProjection: Projection = {
  name: 'models',
  tables: [],
  types: [MODEL_CALLED, INVESTIGATION_NOTE, DECISION_S1],
  apply: () => undefined,
};

export interface ModelUseDeps {
  readonly config: Config;
  readonly ledger: LedgerService;
  readonly writer: Writer;
  /** Tests and the doctor's probes may pass their own. */
  readonly fetch?: FetchLike;
}

function clientOf(s: EndpointSettings, fetch: FetchLike | undefined, cassette: boolean) {
  return createModelClient({
    url: s.url,
    model: s.model,
    key: s.key,
    extra: s.extra,
    timeoutS: s.timeoutS,
    concurrency: s.concurrency,
    dailyTokens: s.dailyTokens,
    cassetteDir: cassette ? s.cassetteDir : null,
    replay: cassette ? s.replay : null,
    ...(fetch === undefined ? {} : { fetch }),
  });
}

export function createModelUse(deps: ModelUseDeps) {
  const settings = modelSettings(deps.config);
  const clients: Record<ModelSystem, ModelClient | null> = {
    s2: settings.s2 === null ? null : clientOf(settings.s2, deps.fetch, true),
    s1: settings.s1 === null ? null : clientOf(settings.s1, deps.fetch, true),
  };
  // Health probes skip the cassette: they ask the endpoint itself, and record nothing.
  const probes: Record<ModelSystem, ModelClient | null> = {
    s2: settings.s2?.url == null ? null : clientOf(settings.s2, deps.fetch, false),
    s1: settings.s1?.url == null ? null : clientOf(settings.s1, deps.fetch, false),
  };

  const record = (data: Record<string, unknown>, traceId: string | null) =>
    deps.writer.transact(() =>
      deps.ledger.append({ type: MODEL_CALLED, actor: 'system', data, trace_id: traceId }),
    );

  async function bounded(
    client: ModelClient,
    request: ModelRequest,
    seconds: number,
  ): Promise<ModelAnswer> {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(
          new ModelError('timeout', `no answer in ${String(seconds)} s`, {
            purpose: request.purpose,
          }),
        );
      }, seconds * 1000);
    });
    try {
      return await Promise.race([client.call(request, abort.signal), limit]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One model call, recorded. Throws a ModelError on failure (after recording it); the
   * caller falls back (template note, unverified gate).
   */
  async function call(
    system: ModelSystem,
    request: ModelRequest,
    traceId: string | null,
    options: { probe?: boolean; timeoutS?: number } = {},
  ): Promise<ModelAnswer> {
    const client = options.probe === true ? probes[system] : clients[system];
    const s = settings[system];
    if (client === null || s === null)
      throw new ModelError('refused', `${system} is not configured`, {
        purpose: request.purpose,
        status: null,
      });
    const started = Date.now();
    const base = { purpose: request.purpose, system };
    try {
      const answer = await bounded(client, request, options.timeoutS ?? s.timeoutS);
      await record(
        {
          ...base,
          model: answer.model,
          prompt_tokens: answer.usage.prompt_tokens,
          completion_tokens: answer.usage.completion_tokens,
          seconds: answer.seconds,
          cached: answer.cached,
          ok: true,
        },
        traceId,
      );
      return answer;
    } catch (err) {
      const kind = err instanceof ModelError ? err.kind : 'refused';
      await record(
        {
          ...base,
          model: s.model,
          prompt_tokens: 0,
          completion_tokens: 0,
          seconds: Math.round(Date.now() - started) / 1000,
          cached: false,
          ok: false,
          error_kind: kind,
        },
        traceId,
      );
      if (err instanceof ModelError) throw err;
      throw new ModelError('refused', 'the model call failed', {
        purpose: request.purpose,
        status: null,
      });
    }
  }

  return {
    configured: (system: ModelSystem): boolean => clients[system] !== null,
    /** Whether the system answers from a cassette only (no endpoint to probe). */
    replayOnly: (system: ModelSystem): boolean =>
      settings[system] !== null && settings[system].url === null,
    call,
    /** What GET /v1/status shows: origins and model names, never keys or paths. */
    describe() {
      const view = (s: EndpointSettings | null) =>
        s === null ? null : { url_origin: originOf(s.url), model: s.model };
      return {
        system2: view(settings.s2),
        system1: view(settings.s1),
        cassette: deps.config.model.cassetteDir === null ? null : deps.config.model.replay,
      };
    },
  };
}
export type ModelUse = ReturnType<typeof createModelUse>;
