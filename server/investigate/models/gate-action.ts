// System 1's gate "is this action safe?", asked when the orchestrator is about to dry-run,
// run or ask approval for a fix (not for shadow's record, nor when nothing runs). The prompt
// holds only stable facts (the cause, the service, the fix and the filled call it makes),
// never readings. A "no" vetoes the action: nothing runs and the episode is handed over. An
// error, a timeout or a spent ceiling lets the action go on, with the gate recorded unverified.
import { fillCall } from '../../act/index.js';
import type { FixPlan } from '../fix-plan.js';
import type { Diagnosis } from '../orchestrator.js';
import { recordGate, type GateDeps } from './gate.js';
import { errorKind } from './service.js';

const ACTION_SCHEMA = {
  type: 'object',
  properties: { safe: { type: 'boolean' }, why: { type: 'string', maxLength: 300 } },
  required: ['safe', 'why'],
  additionalProperties: false,
} as const;

const SYSTEM =
  'You check an action an incident service is about to take. Say whether it is safe to run: ' +
  'it fits the cause, touches only the service named, and its risk suits the cause. Use only ' +
  'the facts given. Answer with JSON.';

/** The facts System 1 is given: what the fix is and the exact call it makes. */
function actionPrompt(plan: FixPlan, diagnosis: Diagnosis): string {
  const cause = diagnosis.hypotheses.find((h) => h.confidence === 'proven');
  const { call } = fillCall(plan.fix.action, plan.vars);
  return JSON.stringify({
    cause: cause?.title ?? null,
    service: plan.service,
    fix: { id: plan.fix.id, title: plan.fix.title, risk: plan.fix.risk, kind: plan.fix.kind },
    action: { op: call.op, args: call.args },
  });
}

export async function gateAction(
  deps: GateDeps,
  episodeId: string,
  plan: FixPlan,
  diagnosis: Diagnosis,
): Promise<{ vetoed: boolean; why: string }> {
  if (!deps.models.configured('s1')) return { vetoed: false, why: '' };
  const base = { gate: 'action_safe', fix: plan.fix.id };
  try {
    const answer = await deps.models.call(
      's1',
      {
        purpose: 's1.action_safe',
        system: SYSTEM,
        user: actionPrompt(plan, diagnosis),
        schema: ACTION_SCHEMA,
        max_tokens: 200,
      },
      episodeId,
    );
    const v = answer.value as { safe: boolean; why: string };
    const why = v.safe ? v.why : `System 1 vetoed: ${v.why}`;
    await recordGate(
      deps,
      episodeId,
      { ...base, safe: v.safe, why: v.why, verified: true },
      v.safe ? null : why,
    );
    return { vetoed: !v.safe, why };
  } catch (err) {
    const kind = errorKind(err);
    await recordGate(deps, episodeId, { ...base, safe: null, verified: false, error_kind: kind });
    return { vetoed: false, why: `System 1 did not answer (${kind})` };
  }
}
