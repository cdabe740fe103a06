// The causal discovery service (SVC_CAUSAL_URL): an outside service that finds which
// readings drive which. It has no published API, so this one is ours (docs/study.md):
//   POST <url>   Authorization: Bearer <SVC_CAUSAL_TOKEN>
//   {"series": {"<service>/<reading>": [numbers, null for a missing point]}, "step_s": n, "tau": n}
//   → 200 {"links": [{"from": "<series>", "to": "<series>", "lag": steps, "strength": 0..1}]}
// A link from → to means `from` drives `to` `lag` steps later. Any failure (no answer within
// SVC_CAUSAL_TIMEOUT_S, a refused token, an answer of another shape) is a reason the study
// shows, and it falls back to its own lagged correlation. The token is never logged or shown.
import { networkErrorText, readBodyLimited } from '../connectors/index.js';
import type { Secret } from '../shared/secret.js';
import { MAX_RELATIONS, type Relation, type Series } from './study.figures.js';

export interface CausalSettings {
  readonly url: string;
  readonly token: Secret | null;
  readonly tau: number;
  readonly timeoutS: number;
}

export type CausalAnswer =
  | { readonly ok: true; readonly relations: Relation[] }
  | { readonly ok: false; readonly why: string };

const asRecord = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** The series' name as sent: `<service>/<reading>`. */
export const seriesName = (s: Pick<Series, 'service' | 'reading'>): string =>
  `${s.service}/${s.reading}`;

/** The most an answer may be: links between at most a few hundred series. */
export const CAUSAL_ANSWER_MAX_BYTES = 8 * 1024 * 1024;

function hasCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
}

/** Where the URL points, without credentials or query, for a reason shown to a person. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'the causal discovery service';
  }
}

/**
 * Asks the causal discovery service for links between the series. Links between readings of
 * one service, or naming series not sent, are left out; per pair of services the strongest
 * link is kept. The leader (`from` of the link) is depended on, as in lagged correlation.
 */
export async function discoverLinks(
  settings: CausalSettings,
  series: readonly Series[],
  stepS: number,
): Promise<CausalAnswer> {
  const where = shown(settings.url);
  const byName = new Map(series.map((s) => [seriesName(s), s]));
  const body = {
    series: Object.fromEntries(
      series.map((s) => [seriesName(s), s.values.map((v) => (Number.isFinite(v) ? v : null))]),
    ),
    step_s: stepS,
    tau: settings.tau,
  };
  // fetch refuses a URL with user:password@ and names the whole URL in its error, which is
  // shown to viewers and kept in the ledger: the token variable is the way to authenticate.
  if (hasCredentials(settings.url))
    return {
      ok: false,
      why: `SVC_CAUSAL_URL carries a user name or password, which is never sent: set SVC_CAUSAL_TOKEN (or SVC_CAUSAL_TOKEN_FILE) instead`,
    };
  let res: Response;
  try {
    res = await fetch(settings.url, {
      redirect: 'error',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.token !== null && { authorization: `Bearer ${settings.token.reveal()}` }),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(settings.timeoutS * 1000),
    });
  } catch (err) {
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    return {
      ok: false,
      why: timedOut
        ? `the causal discovery service at ${where} did not answer within ${String(settings.timeoutS)} s (SVC_CAUSAL_TIMEOUT_S)`
        : `the causal discovery service at ${where} could not be reached: ${networkErrorText(err)}`,
    };
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return {
      ok: false,
      why: `the causal discovery service at ${where} refused the token (${String(res.status)}): set SVC_CAUSAL_TOKEN (or SVC_CAUSAL_TOKEN_FILE) to a token it accepts`,
    };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return {
      ok: false,
      why: `the causal discovery service at ${where} answered ${String(res.status)}`,
    };
  }
  let answer: unknown;
  try {
    answer = JSON.parse(await readBodyLimited(res, CAUSAL_ANSWER_MAX_BYTES, 'the answer'));
  } catch (err) {
    return {
      ok: false,
      why: `the causal discovery service at ${where} answered no usable JSON: ${(err as Error).message}`,
    };
  }
  const links = asRecord(answer)?.['links'];
  if (!Array.isArray(links))
    return { ok: false, why: `the causal discovery service at ${where} answered without links` };
  const best = new Map<string, Relation>();
  for (const raw of links as unknown[]) {
    const l = asRecord(raw);
    const from = byName.get(String(l?.['from']));
    const to = byName.get(String(l?.['to']));
    const lag = l?.['lag'];
    const strength = l?.['strength'];
    if (from === undefined || to === undefined || from.service === to.service) continue;
    // Only what was asked for: a whole lag of 0 to tau steps, a strength of 0 to 1.
    if (typeof lag !== 'number' || !Number.isInteger(lag) || lag < 0 || lag > settings.tau)
      continue;
    if (typeof strength !== 'number' || !(strength >= 0 && strength <= 1)) continue;
    const s = round2(strength);
    const relation: Relation = {
      from: to.service,
      to: from.service,
      lag,
      strength: s,
      score: s,
      readings: `${from.service} ${from.reading} → ${to.service} ${to.reading}`,
      method: 'causal_service',
    };
    const key = [from.service, to.service].sort().join('\u0000');
    const before = best.get(key);
    if (before === undefined || relation.score > before.score) best.set(key, relation);
  }
  return {
    ok: true,
    relations: [...best.values()]
      .sort((a, b) => b.score - a.score || a.from.localeCompare(b.from) || a.to.localeCompare(b.to))
      .slice(0, MAX_RELATIONS),
  };
}
