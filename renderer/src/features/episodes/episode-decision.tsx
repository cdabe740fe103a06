// The episode's decision told honestly: what was decided in words, with the caveat in the
// same sentence when some hypotheses could not be tested (their checks unreadable or never
// read: `unproven`), so "cleared" never reads as "nothing was wrong" above causes nobody
// checked. The decisions are the spec's enumeration; server/investigate/decide.ts says when
// each is made.
import { type Episode } from './api.js';
import type { Diagnosis } from './episode-diagnosis.js';

/** Each decision as a person reads it: a glyph and a short phrase (never colour alone). */
export const DECISIONS: Record<string, string> = {
  act: '▶ Acted: the fix was run',
  shadow: '– Shadow: the fix was recorded, nothing ran',
  restore: '↺ Restore: rolling back a change',
  mitigated_first: '▶ Mitigated first',
  ask_human: '◆ Handed to a person',
  vetoed: '✖ Vetoed',
  same_cause: '⇄ Same cause as another episode',
  downstream: '⇄ Downstream of a cause elsewhere',
  related: '⇄ Related to another episode',
  settled: '✓ Settled: the alert ended by itself',
  recurrence: '↻ Recurrence of an earlier episode',
  abstain: '○ No decision: no cause proven',
  cleared: '✕ Cleared',
  denied: '✖ Denied: the approval was refused',
  dry_run_failed: '✖ Dry run failed',
  no_approval_route: '◆ Nobody could be asked to approve',
  change_blocked: '◆ Blocked by a change window',
  blocked: '◆ Blocked: halted or not allowed by policy',
};

const plural = (n: number, one: string, many: string): string =>
  `${String(n)} ${n === 1 ? one : many}`;

export function Decision({ episode }: { episode: Episode }) {
  const d = episode as unknown as Diagnosis;
  const detail = d.decision_detail ?? null;
  const decision = detail?.decision ?? episode.decision;
  const hypotheses = d.hypotheses ?? [];
  const untested = hypotheses.filter((h) => h.confidence === 'unproven');
  const ruledOut = hypotheses.filter((h) => h.confidence === 'cleared');
  const unreadable = (d.findings ?? []).filter((f) => !f.readable);
  if (decision === '')
    return episode.live ? (
      <section aria-label="decision" className="episode-decision">
        <p>
          <strong>No decision yet</strong>{' '}
          <span className="muted">
            — investigating{episode.step ? `, step ${episode.step}` : ''}
          </span>
        </p>
      </section>
    ) : null;
  return (
    <section
      aria-label="decision"
      className="episode-decision"
      data-caveat={untested.length > 0 ? 'untested' : undefined}
    >
      <p className="decision-line">
        <span className="muted">Decision </span>
        <strong>{DECISIONS[decision] ?? decision.replace(/_/g, ' ')}</strong>
        {untested.length > 0 && (
          <span className="decision-caveat">
            {' '}
            — ⚠ {plural(untested.length, 'hypothesis', 'hypotheses')} could not be tested:{' '}
            {untested.map((h) => h.title).join(', ')}
          </span>
        )}
      </p>
      {(ruledOut.length > 0 || unreadable.length > 0) && (
        <p className="decision-sub">
          {ruledOut.length > 0 && <>Ruled out: {ruledOut.map((h) => h.title).join(', ')}. </>}
          {unreadable.length > 0 && (
            <>
              {plural(unreadable.length, 'check', 'checks')} could not be read:{' '}
              {unreadable.map((f) => f.check).join(', ')}.
            </>
          )}
        </p>
      )}
      {detail !== null && (
        <p className="decision-sub muted">
          Why: {detail.why}
          {detail.next && detail.next !== 'none' ? ` · next: ${detail.next}` : ''}
        </p>
      )}
    </section>
  );
}
