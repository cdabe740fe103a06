// Episodes (GET /v1/episodes, GET /v1/episodes/<id>, POST .../team): wire shapes and calls.
import { type RunningEpisode } from '../live/index.js';
import { call } from '../../shared/api.js';

export interface EpisodeRow {
  episode_id: string;
  service: string;
  t_open: string;
  t_close: string | null;
  alerts: string[];
  confirmed: unknown[];
  decision: string;
  outcome: string;
  result: string;
  action: string;
  handover_s: number | null;
  autonomy: string;
  kind: string;
  confidence: string;
  /** the worst severity of its alerts (critical, high, warning, info, unknown) */
  severity?: string;
  duration_s: number | null;
  incident_id: string | null;
  verdict: string | null;
  suppressed: boolean;
  related?: number;
  related_ids?: string[];
  services?: string[];
}

export interface Scorecard {
  episodes: number;
  results: Record<string, number>;
  incidents: number;
  share_ended_by_3am: number | null;
  restore_s: { median: number | null };
  handover_s: { median: number | null; within_90: number | null };
  actions: { ran: number; verified: number; taken_back: number; not_verified: number };
  minutes_saved: number | null;
  /** How minutes_saved was counted; shadow mode's would-be figure apart from it. */
  minutes_saved_how?: {
    shadow_proven: number;
    shadow_would_save: number | null;
    text: string;
  };
}

export interface HistogramDay {
  day: string;
  total: number;
  failures: number;
  symptoms: number;
  proven: number;
  mitigated: number;
  escalated: number;
  /** per result, without the episodes taken back; with taken_back it adds up to total */
  results: Record<string, number>;
  taken_back: number;
  restore_s: { median: number | null; n: number };
  handover_s: { median: number | null; n: number };
}

export interface EpisodeList {
  episodes: EpisodeRow[];
  total: number;
  limit: number;
  offset: number;
  sort: string;
  running: RunningEpisode[];
  seq: number;
  facets: Record<string, Record<string, number>>;
  latest?: number;
  complete?: boolean;
  scorecard?: Scorecard;
  histogram?: HistogramDay[];
}

export interface TimelineEvent {
  seq: number;
  ts: string;
  type: string;
  actor: string;
  data: Record<string, unknown>;
  reason: string | null;
}

export interface Episode extends Omit<EpisodeRow, 'suppressed' | 'duration_s' | 'verdict'> {
  live: boolean;
  status?: string;
  step?: string;
  relation: string;
  suppressed: { kind: string; rule: string; until?: string; at?: string }[];
  team: { verdict: string; detail: string | null } | null;
  findings?: unknown[];
  hypotheses?: unknown[];
  timeline: TimelineEvent[];
  more: boolean;
}

export const episodesApi = {
  episodes: (query: string) =>
    call<EpisodeList>('GET', `/v1/episodes${query === '' ? '' : `?${query}`}`),
  episode: (id: string, afterSeq?: number) =>
    call<Episode>(
      'GET',
      `/v1/episodes/${encodeURIComponent(id)}${afterSeq === undefined ? '' : `?after_seq=${String(afterSeq)}`}`,
    ),
  team: (id: string, verdict: string, detail?: string) =>
    call<{ verdict: string }>('POST', `/v1/episodes/${encodeURIComponent(id)}/team`, {
      verdict,
      ...(detail !== undefined && detail !== '' && { detail }),
    }),
};
