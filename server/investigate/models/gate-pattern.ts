// System 1's gate "is this the same pattern?", asked when the lead names a recurrence (the
// closed episode of the same cause and service it repeats, diagnose.ts). Matching by cause id
// alone can join two different failures; System 1 compares what proved each. A "no" removes
// the recurrence mark from the lead and never changes its confidence; an error keeps the mark,
// with the gate recorded unverified.
import type { InvestigationRow } from '../investigations.store.js';
import type { Closing } from '../closing.js';
import type { Diagnosis } from '../orchestrator.js';
import type { Hypothesis } from '../types.js';
import { recordGate, type GateDeps } from './gate.js';
import { errorKind } from './service.js';

const PATTERN_SCHEMA = {
  type: 'object',
  properties: { same: { type: 'boolean' }, why: { type: 'string', maxLength: 300 } },
  required: ['same', 'why'],
  additionalProperties: false,
} as const;

const SYSTEM =
  'You compare two incident episodes of one service. Say whether this episode repeats the ' +
  'earlier one: the same cause, shown by the same evidence. Use only the facts given. ' +
  'Answer with JSON.';

export interface PatternDeps extends GateDeps {
  /** the earlier episode's investigation, for how it closed; absent: only its id is given */
  readonly row?: (episodeId: string) => Pick<InvestigationRow, 'hypotheses' | 'result'> | null;
}

/** How the earlier episode closed: its cause, what proved it, its fix (ids and titles only). */
function earlierOf(deps: PatternDeps, episodeId: string): Record<string, unknown> {
  const row = deps.row?.(episodeId) ?? null;
  if (row === null) return { episode_id: episodeId };
  try {
    const lead = (JSON.parse(row.hypotheses) as Hypothesis[])[0];
    const closing = row.result === null ? null : (JSON.parse(row.result) as Partial<Closing>);
    return {
      episode_id: episodeId,
      cause: lead?.title ?? null,
      proving: lead?.proving ?? [],
      fix: closing?.fix ?? null,
      action: closing?.action ?? null,
    };
  } catch {
    // A row that does not parse is no reason to skip the gate: ask with the id alone.
    return { episode_id: episodeId };
  }
}

export async function gatePattern(
  deps: PatternDeps,
  episodeId: string,
  diagnosis: Diagnosis,
): Promise<Diagnosis> {
  const lead = diagnosis.hypotheses[0];
  const earlier = lead?.recurrence_of ?? null;
  if (!deps.models.configured('s1') || lead === undefined || earlier === null) return diagnosis;
  const base = { gate: 'same_pattern', cause: lead.cause, recurrence_of: earlier };
  try {
    const answer = await deps.models.call(
      's1',
      {
        purpose: 's1.same_pattern',
        system: SYSTEM,
        user: JSON.stringify({
          cause: lead.title,
          service: lead.service,
          proving: lead.proving,
          earlier: earlierOf(deps, earlier),
        }),
        schema: PATTERN_SCHEMA,
        max_tokens: 200,
      },
      episodeId,
    );
    const v = answer.value as { same: boolean; why: string };
    await recordGate(deps, episodeId, {
      ...base,
      same: v.same,
      why: v.why,
      verified: true,
      removed: !v.same,
    });
    if (v.same) return diagnosis;
    return {
      ...diagnosis,
      hypotheses: [{ ...lead, recurrence_of: null }, ...diagnosis.hypotheses.slice(1)],
    };
  } catch (err) {
    await recordGate(deps, episodeId, {
      ...base,
      same: null,
      verified: false,
      removed: false,
      error_kind: errorKind(err),
    });
    return diagnosis;
  }
}
