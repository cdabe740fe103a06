// The daily digest a manager reads, built from what the stores hold for a window of whole UTC
// days. Pure: the composition root gathers the input (server/compose/digest.ts).
import { dayChartSvg } from './digest.chart.js';
import { digestMarkdown } from './digest.markdown.js';
import type { Digest, DigestFigures } from './digest.wire.js';

export type { Digest, DigestFigures };

const DAY_MS = 86_400_000;
export const MAX_DAYS = 90;

export interface DigestEpisode {
  readonly episode_id: string;
  readonly service: string;
  readonly status: string;
  readonly t_open: string;
  readonly t_close: string | null;
  readonly decision: string | null;
  readonly result: string | null;
  readonly action: string;
  /** the fix the diagnosis named (what shadow mode would have run) */
  readonly fix: string | null;
  readonly handover_s: number | null;
  readonly restore_s: number | null;
  readonly confidence: string;
  readonly verdict: string | null;
}

export interface DigestInput {
  /** the first day and the number of days, UTC */
  readonly first: string;
  readonly days: number;
  /** now, ISO: a window reaching into today ends here */
  readonly now: string;
  readonly episodes: readonly DigestEpisode[];
  readonly incidents: readonly {
    incident_id: string;
    t_open: string;
    t_resolved: string | null;
    services: readonly string[];
  }[];
  readonly approvalsWaiting: number;
  readonly labels: readonly { at: string; correct: boolean; cause: string | null }[];
  readonly demoted: readonly string[];
  readonly ledger: {
    readonly ok: boolean;
    readonly head_seq: number;
    readonly verified_at: string;
    readonly failure: string | null;
  };
}

/** The window of `days` whole UTC days ending with `lastDay` (YYYY-MM-DD). */
export function windowOf(
  lastDay: string,
  days: number,
): { first: string; from: string; to: string } {
  const end = Date.parse(`${lastDay}T00:00:00.000Z`) + DAY_MS;
  const start = end - days * DAY_MS;
  return {
    first: new Date(start).toISOString().slice(0, 10),
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
  };
}

export const dayOf = (iso: string): string => iso.slice(0, 10);

function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i] ?? null;
}

const timing = (values: readonly number[]) => ({
  n: values.length,
  median_s: percentile(values, 0.5),
  p90_s: percentile(values, 0.9),
});

const TEAM_AGREED = new Set(['same', 'advice']);

/** The digest's figures, before they are drawn and written. */
export function figuresOf(input: DigestInput): DigestFigures {
  const { from, to } = windowOf(
    new Date(Date.parse(`${input.first}T00:00:00.000Z`) + (input.days - 1) * DAY_MS)
      .toISOString()
      .slice(0, 10),
    input.days,
  );
  const within = (iso: string | null): boolean => iso !== null && iso >= from && iso < to;
  const opened = input.episodes.filter((e) => within(e.t_open));
  const ended = input.episodes.filter((e) => e.status === 'closed' && within(e.t_close));

  const byService = new Map<string, { opened: number; ended: number }>();
  const bump = (service: string, key: 'opened' | 'ended') => {
    const s = byService.get(service) ?? { opened: 0, ended: 0 };
    s[key] += 1;
    byService.set(service, s);
  };
  const incidentsOpened = input.incidents.filter((i) => within(i.t_open));
  const incidentsEnded = input.incidents.filter((i) => within(i.t_resolved));
  for (const i of incidentsOpened) bump(i.services[0] ?? 'unknown', 'opened');
  for (const i of incidentsEnded) bump(i.services[0] ?? 'unknown', 'ended');

  const results: Record<string, number> = {};
  for (const e of ended) {
    const r = e.result ?? 'other';
    results[r] = (results[r] ?? 0) + 1;
  }
  const diagnosed = {
    proven: ended.filter((e) => e.confidence === 'proven').length,
    linked: ended.filter((e) => e.confidence === 'linked').length,
    other: ended.filter((e) => e.confidence !== 'proven' && e.confidence !== 'linked').length,
  };
  const shadowEpisodes = ended.filter((e) => e.result === 'shadow');
  const shadow = {
    episodes: shadowEpisodes.length,
    team_agreed: shadowEpisodes.filter((e) => e.verdict !== null && TEAM_AGREED.has(e.verdict))
      .length,
    team_did_other: shadowEpisodes.filter((e) => e.verdict === 'other').length,
    not_judged: shadowEpisodes.filter((e) => e.verdict === null || e.verdict === 'none').length,
    examples: shadowEpisodes.slice(0, 10).map((e) => ({
      episode_id: e.episode_id,
      service: e.service,
      would: e.fix ?? (e.action === '' ? 'nothing' : e.action),
      team: e.verdict ?? 'not judged',
    })),
  };
  const labels = input.labels.filter((l) => within(l.at));
  const perDay = Array.from({ length: input.days }, (_, i) => {
    const day = new Date(Date.parse(from) + i * DAY_MS).toISOString().slice(0, 10);
    return {
      day,
      opened: incidentsOpened.filter((x) => dayOf(x.t_open) === day).length,
      ended: incidentsEnded.filter((x) => x.t_resolved !== null && dayOf(x.t_resolved) === day)
        .length,
    };
  });
  const digest: DigestFigures = {
    first_day: dayOf(from),
    last_day: dayOf(new Date(Date.parse(to) - DAY_MS).toISOString()),
    days: input.days,
    from,
    to,
    partial: input.now < to,
    incidents: {
      opened: incidentsOpened.length,
      ended: incidentsEnded.length,
      by_service: [...byService]
        .map(([service, n]) => ({ service, ...n }))
        .sort(
          (a, b) => b.opened + b.ended - (a.opened + a.ended) || a.service.localeCompare(b.service),
        ),
    },
    episodes: { opened: opened.length, ended: ended.length },
    service: {
      diagnosed,
      results,
      acted: ended.filter((e) => e.action !== '' && e.result !== 'shadow').length,
    },
    times: {
      handover: timing(ended.flatMap((e) => (e.handover_s === null ? [] : [e.handover_s]))),
      restore: timing(ended.flatMap((e) => (e.restore_s === null ? [] : [e.restore_s]))),
    },
    approvals_waiting: input.approvalsWaiting,
    shadow,
    labels: {
      labels: labels.length,
      correct: labels.filter((l) => l.correct).length,
      wrong: labels.filter((l) => !l.correct).length,
      demoted: [...input.demoted],
    },
    ledger: input.ledger,
    per_day: perDay,
  };
  return digest;
}

export function buildDigest(input: DigestInput): Digest {
  const figures = figuresOf(input);
  return {
    ...figures,
    chart_svg: dayChartSvg(figures.per_day),
    markdown: digestMarkdown(figures),
  };
}
