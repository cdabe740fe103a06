// The `models` part of GET /v1/status: where the models run, each system's model and its
// endpoint's origin (never a key, a path or a query), today's tokens against the daily
// ceiling, and the local runtime's state. Public: the console shows it before sign-in.
import type { Config } from '../config.js';
import {
  localModelFile,
  modelSettings,
  originOf,
  type ModelSystem,
  type ModelUseState,
} from '../investigate/index.js';

type Placement = 'local' | 'endpoint' | 'cassette' | 'missing';

function placementOf(config: Config): Placement {
  const m = config.model;
  if (m.url !== null) return m.local ? 'local' : 'endpoint';
  if (localModelFile(config) !== null) return 'local';
  return m.cassetteDir !== null && m.replay === 'replay' ? 'cassette' : 'missing';
}

/**
 * The view, as a function to call per request: the settings only change with a restart, so
 * they are resolved once here; the token counts and the local runtime's state are read live
 * (`live` is absent in svc-core).
 */
export function modelsView(config: Config, live?: ModelUseState) {
  const { s1, s2 } = modelSettings(config);
  const placement = placementOf(config);
  const endpoint = (s: typeof s1) => ({
    configured: s !== null,
    model: s?.model ?? null,
    url_origin: originOf(s?.url ?? null),
  });
  const system2 = {
    ...endpoint(s2),
    investigator: config.investigator.kind,
    investigator_bounds: {
      s2_calls: config.investigator.mctsS2Calls,
      reads: config.investigator.mctsReads,
      depth: config.investigator.mctsDepth,
    },
    daily_tokens: config.model.dailyTokens,
  };
  const system1 = { ...endpoint(s1), daily_tokens: config.s1.dailyTokens };
  const cassette = config.model.cassetteDir === null ? null : config.model.replay;
  return () => {
    const ceilings = live?.ceilings();
    // state() rolls over at 00:00 UTC, so `used` is always today's.
    const tokensToday = (system: ModelSystem) => ceilings?.[system]?.used ?? 0;
    return {
      placement,
      system2: { ...system2, tokens_today: tokensToday('s2') },
      system1: { ...system1, tokens_today: tokensToday('s1') },
      cassette,
      local: live?.local() ?? null,
    };
  };
}
