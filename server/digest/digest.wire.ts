// The wire shape of GET /v1/digest (docs/digest.md): the figures of a window of whole UTC
// days, the per-day chart and the Markdown. Types only: the console imports them (`import
// type`), so a change here that breaks the Digest page fails the console's type check.

export interface DigestTiming {
  n: number;
  median_s: number | null;
  p90_s: number | null;
}

/** The digest's figures, before they are drawn and written. */
export interface DigestFigures {
  first_day: string;
  last_day: string;
  days: number;
  from: string;
  to: string;
  /** the window reaches into today: the figures are so far */
  partial: boolean;
  incidents: {
    opened: number;
    ended: number;
    by_service: { service: string; opened: number; ended: number }[];
  };
  episodes: { opened: number; ended: number };
  service: {
    diagnosed: { proven: number; linked: number; other: number };
    results: Record<string, number>;
    acted: number;
  };
  times: { handover: DigestTiming; restore: DigestTiming };
  approvals_waiting: number;
  shadow: {
    episodes: number;
    team_agreed: number;
    team_did_other: number;
    not_judged: number;
    examples: { episode_id: string; service: string; would: string; team: string }[];
  };
  labels: { labels: number; correct: number; wrong: number; demoted: string[] };
  ledger: { ok: boolean; head_seq: number; verified_at: string; failure: string | null };
  per_day: { day: string; opened: number; ended: number }[];
}

/** GET /v1/digest: the figures, the per-day chart (SVG) and the Markdown to copy. */
export interface Digest extends DigestFigures {
  chart_svg: string;
  markdown: string;
}
