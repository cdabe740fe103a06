// The model service of the server: one client per system (null when unconfigured), and every
// call a `model.called` ledger event with the episode's trace id, its token counts and time,
// never the key and never the prompt (only its purpose). A call is bounded by the system's
// timeout here as well as in the client, so a model never stalls an episode.
import type { Writer } from '../../db/writer.js';
import { projectionOf, type DomainLedger, type ReadonlyDeep } from '../../ledger/index.js';
import { createModelClient, ModelError } from '../../../models/index.js';
import type {
  CeilingClient,
  CeilingState,
  FetchLike,
  ModelAnswer,
  ModelClient,
  ModelClock,
  ModelRequest,
} from '../../../models/index.js';
import type { Config } from '../../config.js';
import type { LocalModel, LocalModelView } from './local.js';
import { modelSettings, originOf, type EndpointSettings, type ModelSystem } from './settings.js';
import type { InvestigateEvents } from '../investigate.events.js';

const MODEL_CALLED = 'model.called';
export const INVESTIGATION_NOTE = 'investigation.note';
export const DECISION_S1 = 'decision.s1';

/** Written only by the service: POST /v1/events refuses these types. */
export const modelUseProjection = projectionOf<InvestigateEvents>({
  name: 'models',
  tables: [],
  on: {},
  reserves: [MODEL_CALLED, INVESTIGATION_NOTE, DECISION_S1],
});

export interface ModelUseDeps {
  readonly config: Config;
  readonly ledger: DomainLedger<InvestigateEvents>;
  readonly writer: Writer;
  /** Tests and the doctor's probes may pass their own. */
  readonly fetch?: FetchLike;
  /** The local runtime, when server/main.ts or main/ loaded one (SVC_MODEL_LOCAL=1). */
  readonly local?: LocalModel;
  /** Tests: the day of the token ceilings. */
  readonly clock?: ModelClock;
}

/** What callers of the models use; tests fake it. */
export interface ModelUse {
  configured(system: ModelSystem): boolean;
  /** Whether the system answers from a cassette only (no endpoint to probe). */
  replayOnly(system: ModelSystem): boolean;
  call(
    system: ModelSystem,
    request: ModelRequest,
    traceId: string | null,
    options?: { probe?: boolean; timeoutS?: number },
  ): Promise<ModelAnswer>;
  describe(): {
    system2: { url_origin: string | null; model: string } | null;
    system1: { url_origin: string | null; model: string } | null;
    cassette: 'record' | 'replay' | 'auto' | null;
  };
}

/** The live state status and doctor show beside ModelUse. */
export interface ModelUseState {
  /** Each system's daily token ceiling today; null when the system is unconfigured. */
  ceilings(): Record<ModelSystem, CeilingState | null>;
  /** The local runtime's state; null when there is none. */
  local(): LocalModelView | null;
}

const NOT_LOADED = 'the local model is not loaded in this process';

/** What a failed call is recorded as: the model's error kind, else `refused`. */
export const errorKind = (err: unknown): string =>
  err instanceof ModelError ? err.kind : 'refused';

/** Configured, but with no endpoint and no local model: answers come from the cassette only. */
const replayOnly = (s: EndpointSettings | null): boolean =>
  s !== null && s.url === null && !s.local;

/** Answers "not loaded" when the settings want the local model and none was passed in. */
const notLoaded: ModelClient = {
  call: (request) =>
    Promise.reject(
      new ModelError('refused', NOT_LOADED, {
        purpose: request.purpose,
        status: null,
      }),
    ),
};

function clientOf(
  s: EndpointSettings,
  deps: Pick<ModelUseDeps, 'fetch' | 'local' | 'clock'>,
  cassette: boolean,
): CeilingClient {
  const { fetch, clock } = deps;
  return createModelClient({
    url: s.url,
    ...(s.local ? { transport: deps.local?.client ?? notLoaded } : {}),
    model: s.model,
    key: s.key,
    extra: s.extra,
    timeoutS: s.timeoutS,
    concurrency: s.concurrency,
    dailyTokens: s.dailyTokens,
    cassetteDir: cassette ? s.cassetteDir : null,
    replay: cassette ? s.replay : null,
    ...(fetch === undefined ? {} : { fetch }),
    ...(clock === undefined ? {} : { clock }),
  });
}

export function createModelUse(deps: ModelUseDeps): ModelUse & ModelUseState {
  const settings = modelSettings(deps.config);
  const clients: Record<ModelSystem, CeilingClient | null> = {
    s2: settings.s2 === null ? null : clientOf(settings.s2, deps, true),
    s1: settings.s1 === null ? null : clientOf(settings.s1, deps, true),
  };
  // Health probes skip the cassette: they ask the endpoint (or the local model) itself, and
  // record nothing. Their own ceilings count nothing the real ones do.
  const probeOf = (s: EndpointSettings | null) =>
    s === null || replayOnly(s) ? null : clientOf(s, deps, false);
  const probes: Record<ModelSystem, ModelClient | null> = {
    s2: probeOf(settings.s2),
    s1: probeOf(settings.s1),
  };

  const record = (data: ReadonlyDeep<InvestigateEvents['model.called']>, traceId: string | null) =>
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
      await record(
        {
          ...base,
          model: s.model,
          prompt_tokens: 0,
          completion_tokens: 0,
          seconds: (Date.now() - started) / 1000,
          cached: false,
          ok: false,
          error_kind: errorKind(err),
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
    replayOnly: (system: ModelSystem): boolean => replayOnly(settings[system]),
    call,
    ceilings: () => ({ s2: clients.s2?.state() ?? null, s1: clients.s1?.state() ?? null }),
    local: (): LocalModelView | null => {
      const s2 = settings.s2;
      if (s2?.local !== true) return null;
      return (
        deps.local?.view() ?? {
          file: s2.model,
          state: 'refused',
          gpu: null,
          reason: NOT_LOADED,
        }
      );
    },
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
