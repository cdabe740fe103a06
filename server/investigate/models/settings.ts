// The two model endpoints the server uses, resolved from config: System 2 (SVC_MODEL_*: the
// investigator and the episode note) and System 1 (SVC_S1_*: fast gates). System 1 falls back
// to the System 2 endpoint when SVC_S1_URL is unset ("depends on model endpoint"), and to its
// key and extra options when it talks to that same endpoint. Null: deliberately unconfigured.
// With SVC_MODEL_LOCAL=1, no SVC_MODEL_URL and SVC_MODEL naming a .gguf file, System 2 (and
// System 1 without SVC_S1_URL) answer from the local runtime instead of an endpoint.
import { basename, isAbsolute, resolve } from 'node:path';
import type { Config } from '../../config.js';

export type ModelSystem = 's1' | 's2';

export interface EndpointSettings {
  readonly url: string | null;
  /** Answers come from the local runtime (the model file), not from `url`. */
  readonly local: boolean;
  readonly model: string;
  readonly key: string | null;
  readonly extra: Readonly<Record<string, unknown>> | null;
  readonly timeoutS: number;
  readonly concurrency: number;
  readonly dailyTokens: number;
  readonly cassetteDir: string | null;
  readonly replay: 'record' | 'replay' | 'auto' | null;
}

const DEFAULT_MODEL = 'default';

/** The origin of an endpoint URL (scheme, host, port): never its path, query or credentials. */
export function originOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The GGUF file the local runtime loads: SVC_MODEL when SVC_MODEL_LOCAL=1, SVC_MODEL_URL is
 * unset and it names a .gguf file, absolute or relative to <SVC_DATA>/models/. Else null.
 */
export function localModelFile(config: Config): string | null {
  const { local, url, name } = config.model;
  if (!local || url !== null || name === null || !/\.gguf$/i.test(name)) return null;
  return isAbsolute(name) ? name : resolve(config.dataDir, 'models', name);
}

export function modelSettings(config: Config): {
  s2: EndpointSettings | null;
  s1: EndpointSettings | null;
} {
  const m = config.model;
  const replayOnly = m.cassetteDir !== null && m.replay === 'replay';
  const cassette = { cassetteDir: m.cassetteDir, replay: m.replay };
  const file = localModelFile(config);
  // A local model is named by its file, never by its path (status shows this name).
  const s2Model = file !== null ? basename(file) : (m.name ?? m.system2 ?? DEFAULT_MODEL);
  const s2: EndpointSettings | null =
    m.url !== null || replayOnly || file !== null
      ? {
          url: m.url,
          local: file !== null,
          model: s2Model,
          key: m.key?.reveal() ?? null,
          extra: m.extra,
          timeoutS: m.timeoutS,
          concurrency: m.concurrency,
          dailyTokens: m.dailyTokens,
          ...cassette,
        }
      : null;
  const s1Url = config.s1.url ?? m.url;
  const s1Local = config.s1.url === null && file !== null;
  const sameEndpoint = s1Url !== null && originOf(s1Url) === originOf(m.url);
  const s1: EndpointSettings | null =
    s1Url !== null || replayOnly || s1Local
      ? {
          url: s1Url,
          local: s1Local,
          // The one local model serves both systems: SVC_S1_MODEL cannot pick another.
          model: s1Local ? s2Model : (config.s1.model ?? s2Model),
          key: config.s1.key?.reveal() ?? (sameEndpoint ? (m.key?.reveal() ?? null) : null),
          extra: sameEndpoint ? m.extra : null,
          timeoutS: config.s1.timeoutS,
          concurrency: config.s1.concurrency,
          dailyTokens: config.s1.dailyTokens,
          ...cassette,
        }
      : null;
  return { s2, s1 };
}
