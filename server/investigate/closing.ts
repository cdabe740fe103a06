// What an investigation ends with: the episode's decision, outcome, result and action (the
// enumerations of the specification, with the meanings of the architecture page), and the
// diagnosis its close records (confidence, confirmed causes, kind, fix).
import {
  afterAction,
  withoutAction,
  type ActionResult as AfterActionResult,
  type Closing as DecisionClosing,
} from './decide.js';
import type { FixPlan } from './fix-plan.js';
import type { Decision, Hypothesis } from './types.js';
import { decisive } from './confidence.js';
import type { EPISODE_CLOSED, EpisodeEvents } from '../episodes/index.js';

/** How an action ended; `none` when nothing ran. */
export type ActionResult = 'none' | 'failed' | AfterActionResult;

export interface Closing extends DecisionClosing {
  readonly confidence: string;
  readonly confirmed: { cause: string; service: string; confidence: string; title: string }[];
  readonly kind: 'symptom' | 'failure' | 'downstream';
  readonly fix: string | null;
}

/** Whether a decision made with nothing run hands the episode to a person. */
export const handsOver = (decision: Decision): boolean =>
  withoutAction(decision).result === 'handed_over';

function diagnosisOf(hypotheses: readonly Hypothesis[]) {
  const lead = hypotheses[0];
  const confirmed = hypotheses
    .filter(decisive)
    .map((h) => ({ cause: h.cause, service: h.service, confidence: h.confidence, title: h.title }));
  const kind: Closing['kind'] =
    lead?.confidence === 'proven'
      ? 'failure'
      : lead?.confidence === 'linked'
        ? 'downstream'
        : 'symptom';
  return { confidence: lead?.confidence ?? 'unproven', confirmed, kind };
}

/** The decision table's closing (decide.ts) with the diagnosis the close records. */
export function closingOf(
  decision: Decision,
  action: ActionResult,
  plan: FixPlan | null,
  diagnosis?: { hypotheses: readonly Hypothesis[] },
): Closing {
  const closed =
    action === 'none'
      ? withoutAction(decision)
      : afterAction(decision, action === 'failed' ? 'not_verified' : action);
  return {
    ...closed,
    ...diagnosisOf(diagnosis?.hypotheses ?? plan?.hypotheses ?? []),
    fix: plan?.fix.id ?? null,
  };
}

/** What the findings `ids` say, in order (a finding not among them is left out). */
export const saysOf = (
  findings: readonly { id: string; says: string }[],
  ids: readonly string[],
): string[] =>
  ids.map((id) => findings.find((f) => f.id === id)?.says).filter((s) => s !== undefined);

/** The note written from a template (the models write a better one when configured). */
export function templateNote(
  closing: Closing,
  decision: { why?: string } | null,
  hypotheses: readonly Hypothesis[],
  findings: readonly { id: string; says: string }[],
): string {
  const lead = hypotheses[0];
  const evidence = lead?.proving.length ? lead.proving : (lead?.supporting ?? []);
  const says = saysOf(findings, evidence);
  const lines = [
    lead === undefined
      ? 'No cause was named: no check matched this alert.'
      : `Cause: ${lead.title} (${lead.confidence}).`,
    ...(says.length > 0 ? [`Evidence: ${says.join('; ')}.`] : []),
    `Decision: ${closing.decision}${decision?.why === undefined ? '' : ` (${decision.why})`}.`,
    ...(closing.fix === null ? [] : [`Fix: ${closing.fix}, ${closing.action || 'not run'}.`]),
  ];
  return lines.join(' ');
}

/**
 * The episode.closed data of an investigated episode; null when it concluded nothing. `note`:
 * the note written when the investigation finished (investigation.note), else the template's.
 */
export function closeFields(
  row: {
    status: string;
    result: string | null;
    decision: string | null;
    hypotheses: string;
    findings: string;
    t_handover: string | null;
  } | null,
  tOpen: string,
  note: string | null = null,
): Omit<EpisodeEvents[typeof EPISODE_CLOSED], 'episode_id'> | null {
  if (row?.status !== 'done' || row.result === null) return null;
  const closing = JSON.parse(row.result) as Closing;
  const hypotheses = JSON.parse(row.hypotheses) as Hypothesis[];
  const findings = JSON.parse(row.findings) as { id: string; says: string }[];
  const decision = row.decision === null ? null : (JSON.parse(row.decision) as { why?: string });
  const handover =
    row.t_handover === null
      ? null
      : Math.max(0, Math.round((Date.parse(row.t_handover) - Date.parse(tOpen)) / 1000));
  return {
    ...closing,
    handover_s: handover,
    diagnosis: hypotheses[0]?.title ?? '',
    note: note ?? templateNote(closing, decision, hypotheses, findings),
  };
}
