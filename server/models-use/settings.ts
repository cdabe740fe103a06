// The two model endpoints the server uses, resolved from config: System 2 (SVC_MODEL_*: the
// investigator and the episode note) and System 1 (SVC_S1_*: fast gates). System 1 falls back
// to the System 2 endpoint when SVC_S1_URL is unset ("depends on model endpoint"), and to its
// key and extra options when it talks to that same endpoint. Null: deliberately unconfigured.
import type { Config } from '../config.js';

export type ModelSystem = 's1' | 's2';

export interface EndpointSettings {
  readonly url: string | null;
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

export function modelSettings(config: Config): {
  s2: EndpointSettings | null;
  s1: EndpointSettings | null;
} {
  const m = config.model;
  const replayOnly = m.cassetteDir !== null && m.replay === 'replay';
  const cassette = { cassetteDir: m.cassetteDir, replay: m.replay };
  const s2Model = m.name ?? m.system2 ?? DEFAULT_MODEL;
  const s2: EndpointSettings | null =
    m.url !== null || replayOnly
      ? {
          url: m.url,
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
  const sameEndpoint = s1Url !== null && originOf(s1Url) === originOf(m.url);
  const s1: EndpointSettings | null =
    s1Url !== null || replayOnly
      ? {
          url: s1Url,
          model: config.s1.model ?? s2Model,
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
