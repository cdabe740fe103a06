// System 1's gate "is this evidence enough?", asked after the hypotheses when System 1 is
// configured and the lead is proven (the only confidence that lets a fix run). A "no" lowers
// the lead to suspected, so nothing acts on it; an error leaves the diagnosis as it was and
// records the gate unverified. The gate never raises a confidence. The other two gates
// (gate-action.ts, gate-pattern.ts) record themselves the same way, through `recordGate`.
import type { Writer } from '../../db/writer.js';
import type { DomainLedger } from '../../ledger/index.js';
import type { Diagnosis } from '../orchestrator.js';
import { DECISION_S1, errorKind, type ModelUse } from './service.js';
import { saysOf } from '../closing.js';
import type { InvestigateEvents } from '../investigate.events.js';

const GATE_SCHEMA = {
  type: 'object',
  properties: { enough: { type: 'boolean' }, why: { type: 'string', maxLength: 300 } },
  required: ['enough', 'why'],
  additionalProperties: false,
} as const;

const SYSTEM =
  'You check an incident diagnosis. Say whether the evidence given is enough to name the ' +
  'cause and act on it. Use only the facts given. Answer with JSON.';

export interface GateDeps {
  readonly models: ModelUse;
  readonly ledger: DomainLedger<InvestigateEvents>;
  readonly writer: Writer;
}

/** One asking of a System 1 gate, as a `decision.s1` event of the episode. */
export function recordGate(
  deps: GateDeps,
  episodeId: string,
  data: Readonly<Record<string, unknown>> & { readonly gate: string; readonly verified: boolean },
  reason: string | null = null,
): Promise<unknown> {
  return deps.writer.transact(() =>
    deps.ledger.append({
      type: DECISION_S1,
      actor: 'system',
      data: { episode_id: episodeId, ...data },
      reason: data.verified ? reason : 'System 1 did not answer: the gate is unverified',
      trace_id: episodeId,
    }),
  );
}

export async function gateEvidence(
  deps: GateDeps,
  episodeId: string,
  diagnosis: Diagnosis,
): Promise<Diagnosis> {
  const lead = diagnosis.hypotheses[0];
  if (!deps.models.configured('s1') || lead?.confidence !== 'proven') return diagnosis;
  const says = saysOf(diagnosis.findings, lead.proving);
  let data: Record<string, unknown> & { gate: string; verified: boolean };
  let out = diagnosis;
  try {
    const answer = await deps.models.call(
      's1',
      {
        purpose: 's1.enough',
        system: SYSTEM,
        user: JSON.stringify({ cause: lead.title, service: lead.service, evidence: says }),
        schema: GATE_SCHEMA,
        max_tokens: 200,
      },
      episodeId,
    );
    const v = answer.value as { enough: boolean; why: string };
    data = {
      gate: 'enough',
      cause: lead.cause,
      enough: v.enough,
      why: v.why,
      verified: true,
      lowered: !v.enough,
    };
    if (!v.enough)
      out = {
        ...diagnosis,
        hypotheses: [{ ...lead, confidence: 'suspected' }, ...diagnosis.hypotheses.slice(1)],
      };
  } catch (err) {
    data = {
      gate: 'enough',
      cause: lead.cause,
      enough: null,
      verified: false,
      lowered: false,
      error_kind: errorKind(err),
    };
  }
  await recordGate(deps, episodeId, data);
  return out;
}
