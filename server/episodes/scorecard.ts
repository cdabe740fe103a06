// The scorecard of the episode list, over exactly the selected rows. minutes_saved comes only
// from the caller's own impact figures and counts only episodes the service's own action
// restored or resolved (docs/decisions.md has the formula, and minutes_saved_how says it in
// words); null when none are set.
import type { Scorecard } from './episodes.wire.js';
import { median, type ScanStats } from './list.scan.js';

export interface ImpactMinutes {
  readonly triage_min: number;
  readonly fix_min: number;
  readonly manual_resolve_min: number;
}

const count = (x: number, what: string): string =>
  `${x.toLocaleString('en')} ${what}${x === 1 ? '' : 's'}`;

const share = (n: number, of: number): number | null =>
  of === 0 ? null : Math.round((n / of) * 1000) / 1000;

/**
 * Minutes people did not spend, counting only episodes the service's own action restored or
 * resolved (an acting decision, its action verified, nobody taking over, not shadow mode): for
 * each, the triage and the manual resolution (or, when that is not set, the fix). An episode
 * whose alerts went away with nothing done, or that a person worked, saved nobody's time by
 * the service's doing; shadow mode did nothing, so what it would have saved (triage and fix
 * for each proven cause) is given apart and never added.
 */
export function minutesSaved(stats: ScanStats, figures: ImpactMinutes | null) {
  const { ended, acted, handedProven, shadowProven } = stats.saved;
  const counts = {
    ended_by_service: ended,
    handed_over_proven: handedProven,
    actions_verified: acted,
    shadow_proven: shadowProven,
  };
  if (
    figures === null ||
    (figures.triage_min <= 0 && figures.fix_min <= 0 && figures.manual_resolve_min <= 0)
  )
    return {
      minutes: null,
      how: {
        ...counts,
        shadow_would_save: null,
        text: 'Set the impact figures (triage, fix or manual resolution minutes) to count minutes saved.',
      },
    };
  const { triage_min: triage, fix_min, manual_resolve_min } = figures;
  const perFix = manual_resolve_min > 0 ? manual_resolve_min : fix_min;
  const fixName = manual_resolve_min > 0 ? 'manual resolution' : 'fix';
  const n = (x: number) => x.toLocaleString('en');
  const shadow = Math.round(shadowProven * (triage + perFix));
  const minutes = Math.round(acted * (triage + perFix));
  return {
    minutes,
    how: {
      ...counts,
      shadow_would_save: shadow,
      text:
        `(${n(triage)} min triage + ${n(perFix)} min ${fixName}) × ${count(acted, 'episode')}` +
        ` the service's own verified action restored or resolved = ${n(minutes)} min.` +
        ` Not counted: ${count(ended - acted, 'episode')} that ended with no action of the service,` +
        ` ${count(handedProven, 'episode')} handed over with a proven cause (a person did the work),` +
        ` and shadow mode, which would have saved ${n(shadow)} min` +
        ` (${count(shadowProven, 'proven cause')} × ${n(triage + perFix)} min).`,
    },
  };
}

export function scorecard(stats: ScanStats, figures: ImpactMinutes | null): Scorecard {
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
    ...savedFields(minutesSaved(stats, figures)),
  };
}

const savedFields = (saved: ReturnType<typeof minutesSaved>) => ({
  minutes_saved: saved.minutes,
  // How minutes_saved was counted, and shadow mode's would-be figure kept apart from it.
  minutes_saved_how: saved.how,
});
