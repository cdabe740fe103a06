// The scorecard of the episode list, over exactly the selected rows. minutes_saved comes only
// from the caller's own impact figures (docs/decisions.md has the formula); null when none.
import { median, type ScanStats } from './list.scan.js';

export interface ImpactMinutes {
  readonly triage_min: number;
  readonly fix_min: number;
  readonly manual_resolve_min: number;
}

const share = (n: number, of: number): number | null =>
  of === 0 ? null : Math.round((n / of) * 1000) / 1000;

/**
 * Minutes people did not spend: triage for every episode nobody had to take over, and the
 * manual resolution (or, when that is not set, the fix) for every action that was verified.
 */
export function minutesSaved(stats: ScanStats, figures: ImpactMinutes | null): number | null {
  if (figures === null) return null;
  const { triage_min, fix_min, manual_resolve_min } = figures;
  if (triage_min <= 0 && fix_min <= 0 && manual_resolve_min <= 0) return null;
  const perFix = manual_resolve_min > 0 ? manual_resolve_min : fix_min;
  return Math.round(stats.unowned * triage_min + stats.verified * perFix);
}

export function scorecard(stats: ScanStats, figures: ImpactMinutes | null) {
  const total = [...stats.results.values()].reduce((a, b) => a + b, 0);
  return {
    episodes: total,
    results: Object.fromEntries(stats.results),
    incidents: stats.incidents,
    share_ended_by_3am: share(stats.incidentsEndedByService, stats.incidents),
    restore_s: { median: median(stats.restore), count: stats.restore.length },
    handover_s: {
      median: median(stats.handover),
      within_90: share(stats.within90, stats.handover.length),
      count: stats.handover.length,
    },
    actions: stats.actions,
    // Diagnoses the team judged (verdict same or advice = right, other = wrong).
    accuracy: { share: share(stats.agreed, stats.judged), judged: stats.judged },
    // Shadow episodes' would-be decisions against the team's verdict: is raising autonomy safe?
    shadow_agreement: {
      share: share(stats.shadowAgreed, stats.shadowJudged),
      judged: stats.shadowJudged,
    },
    minutes_saved: minutesSaved(stats, figures),
  };
}
