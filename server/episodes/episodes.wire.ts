// GET /v1/episodes's rows, scorecard and histogram: the route's schema leaves them open
// (Type.Unknown, so that its serializer passes them through as built), and these types say
// what the list builds (list.service.ts, scorecard.ts, list.histogram.ts) and what the
// console reads (renderer/src/features/episodes). Types only: the console compiles it too.
import type { EpisodeBody, RunningEpisode } from './episodes.schemas.js';

/** One closed episode in the list. */
export interface EpisodeListRow {
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
  severity: string;
  duration_s: number | null;
  incident_id: string | null;
  verdict: string | null;
  suppressed: boolean;
}

/** A row of the list grouped by incident (`group=incident`): the incident's root episode. */
export interface EpisodeGroupRow extends EpisodeListRow {
  /** the incident's other episodes */
  related: number;
  related_ids: string[];
  /** every service of the incident */
  services: string[];
}

/** `scorecard=1`: the selection's figures. */
export interface Scorecard {
  episodes: number;
  results: Record<string, number>;
  incidents: number;
  share_ended_by_3am: number | null;
  restore_s: { median: number | null; count: number };
  handover_s: { median: number | null; within_90: number | null; count: number };
  actions: { ran: number; verified: number; taken_back: number; not_verified: number };
  /** diagnoses the team judged (verdict same or advice = right, other = wrong) */
  accuracy: { share: number | null; judged: number };
  /** shadow episodes' would-be decisions against the team's verdict */
  shadow_agreement: { share: number | null; judged: number };
  minutes_saved: number | null;
  /** how minutes_saved was counted; shadow mode's would-be figure apart from it */
  minutes_saved_how: {
    ended_by_service: number;
    handed_over_proven: number;
    actions_verified: number;
    shadow_proven: number;
    shadow_would_save: number | null;
    text: string;
  };
}

export interface DayMedian {
  /** seconds; null when no episode of the day has the time */
  median: number | null;
  /** how many episodes of the day have it */
  n: number;
}

/** `histogram=day`: one day of the selection. */
export interface HistogramDay {
  day: string;
  total: number;
  failures: number;
  symptoms: number;
  proven: number;
  mitigated: number;
  escalated: number;
  /** counts per result, leaving out the episodes whose action was taken back */
  results: Record<string, number>;
  /** episodes whose action was taken back; with `results` it adds up to `total` */
  taken_back: number;
  restore_s: DayMedian;
  handover_s: DayMedian;
}

/** GET /v1/episodes. */
export interface EpisodeListBody {
  /** EpisodeGroupRow when grouped by incident */
  episodes: EpisodeListRow[] | EpisodeGroupRow[];
  total: number;
  limit: number;
  offset: number;
  sort: string;
  running: RunningEpisode[];
  seq: number;
  facets: Record<string, Record<string, number>>;
  /** with `latest`: whether the window held every episode */
  latest?: number;
  complete?: boolean;
  scorecard?: Scorecard;
  histogram?: HistogramDay[];
}

/** Why a signal is recorded but not investigated (the policy's maintenance and inhibition). */
export type Suppression =
  | { kind: 'maintenance'; rule: string; until: string; reason: string | null }
  | { kind: 'inhibition'; rule: string; by: { source: string; fingerprint: string; name: string } };

/** A suppression as an episode keeps it (the episode.suppressed event's data, its ts and seq). */
export type EpisodeSuppression = Suppression & {
  source: string;
  fingerprint: string;
  name: string;
  at: string;
  seq: number;
};

/** GET /v1/episodes/<id>: the schema's body, its suppressions typed (the schema leaves them open). */
export type EpisodeDetail = Omit<EpisodeBody, 'suppressed'> & { suppressed: EpisodeSuppression[] };
