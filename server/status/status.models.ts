// The `models` part of GET /v1/status: where the models run, each system's model and its
// endpoint's origin (never a key, a path or a query), today's tokens against the daily
// ceiling, and the local runtime's state. Public: the console shows it before sign-in.
import type { CeilingState } from '../../models/index.js';
import type { Config } from '../config.js';
import {
  localModelFile,
  modelSettings,
  originOf,
  type LocalModelView,
  type ModelSystem,
} from '../models-use/index.js';

/** What the running model service knows beyond the configuration (absent in svc-core). */
export interface ModelsLive {
  ceilings(): Record<ModelSystem, CeilingState | null>;
  local(): LocalModelView | null;
}

export type Placement = 'local' | 'endpoint' | 'cassette' | 'missing';

export function placementOf(config: Config): Placement {
  const m = config.model;
  if (m.url !== null) return m.local ? 'local' : 'endpoint';
  if (localModelFile(config) !== null) return 'local';
  return m.cassetteDir !== null && m.replay === 'replay' ? 'cassette' : 'missing';
}

export function modelsView(config: Config, live?: ModelsLive) {
  const { s1, s2 } = modelSettings(config);
  const ceilings = live?.ceilings();
  // state() rolls over at 00:00 UTC, so `used` is always today's.
  const tokensToday = (system: ModelSystem) => ceilings?.[system]?.used ?? 0;
  return {
    placement: placementOf(config),
    system2: {
      configured: s2 !== null,
      model: s2?.model ?? null,
      url_origin: originOf(s2?.url ?? null),
      investigator: config.investigator.kind,
      investigator_bounds: {
        s2_calls: config.investigator.mctsS2Calls,
        reads: config.investigator.mctsReads,
        depth: config.investigator.mctsDepth,
      },
      tokens_today: tokensToday('s2'),
      daily_tokens: config.model.dailyTokens,
    },
    system1: {
      configured: s1 !== null,
      model: s1?.model ?? null,
      url_origin: originOf(s1?.url ?? null),
      tokens_today: tokensToday('s1'),
      daily_tokens: config.s1.dailyTokens,
    },
    cassette: config.model.cassetteDir === null ? null : config.model.replay,
    local: live?.local() ?? null,
  };
}
