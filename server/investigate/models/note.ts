// The episode's note, written by System 2 from the diagnosis when an investigation finishes:
// the hypotheses' titles, the proving findings, the decision and why. Any model error (timeout,
// spent ceiling, refusal, an answer outside the schema) gives the template note instead; the
// note is an `investigation.note` event, which the close prefers to the template. The
// orchestrator's `finished` hook calls `writeNote` once the finish has committed.
import type { Writer } from '../../db/writer.js';
import type { LedgerReader, DomainLedger } from '../../ledger/index.js';
import type { InvestigationRow } from '../investigations.store.js';
import { saysOf, templateNote, type Closing } from '../closing.js';
import type { Hypothesis } from '../types.js';
import { INVESTIGATION_NOTE, type ModelUse } from './service.js';
import type { InvestigateEvents } from '../investigate.events.js';

/** A short note: what a person reads first on the episode. */
const NOTE_MAX = 800;

const NOTE_SCHEMA = {
  type: 'object',
  properties: { note: { type: 'string', minLength: 1, maxLength: NOTE_MAX } },
  required: ['note'],
  additionalProperties: false,
} as const;

const SYSTEM =
  'You write the short note that explains an incident episode to the people on call. ' +
  'Use only the facts given. Plain sentences, at most 800 characters. Answer with JSON.';

interface Parsed {
  closing: Closing;
  hypotheses: Hypothesis[];
  findings: { id: string; says: string }[];
  decision: { decision?: string; why?: string } | null;
}

function parse(row: InvestigationRow): Parsed | null {
  if (row.status !== 'done' || row.result === null) return null;
  return {
    closing: JSON.parse(row.result) as Closing,
    hypotheses: JSON.parse(row.hypotheses) as Hypothesis[],
    findings: JSON.parse(row.findings) as { id: string; says: string }[],
    decision:
      row.decision === null
        ? null
        : (JSON.parse(row.decision) as { decision?: string; why?: string }),
  };
}

/** The facts the model is given: no connector output beyond what each finding says. */
function notePrompt(p: Parsed, service: string): string {
  return JSON.stringify({
    service,
    hypotheses: p.hypotheses.map((h) => ({
      title: h.title,
      confidence: h.confidence,
      proving: saysOf(p.findings, h.proving),
    })),
    decision: p.closing.decision,
    why: p.decision?.why ?? null,
    result: p.closing.result,
    action: p.closing.action,
    fix: p.closing.fix,
  });
}

export interface NoteDeps {
  readonly models: ModelUse;
  readonly ledger: DomainLedger<InvestigateEvents>;
  readonly writer: Writer;
  readonly row: (episodeId: string) => InvestigationRow | null;
}

/** Write the note of a finished investigation (a no-op while it is not done). */
export async function writeNote(
  deps: NoteDeps,
  episodeId: string,
): Promise<{ note: string; source: 'model' | 'template' } | null> {
  const row = deps.row(episodeId);
  const p = row === null ? null : parse(row);
  if (row === null || p === null || !deps.models.configured('s2')) return null;
  let out: { note: string; source: 'model' | 'template' };
  try {
    const answer = await deps.models.call(
      's2',
      {
        purpose: 'note',
        system: SYSTEM,
        user: notePrompt(p, row.service),
        schema: NOTE_SCHEMA,
        // Room for the longest note the schema allows, even at a character per token.
        max_tokens: NOTE_MAX + 100,
      },
      episodeId,
    );
    out = { note: (answer.value as { note: string }).note.trim(), source: 'model' };
    if (out.note === '') throw new Error('empty note');
  } catch {
    out = {
      note: templateNote(p.closing, p.decision, p.hypotheses, p.findings),
      source: 'template',
    };
  }
  await deps.writer.transact(() =>
    deps.ledger.append({
      type: INVESTIGATION_NOTE,
      actor: 'system',
      data: { episode_id: episodeId, ...out },
      trace_id: episodeId,
    }),
  );
  return out;
}

/** The latest note of an episode; null when none was written (the close uses the template). */
export function noteOf(reader: LedgerReader, episodeId: string): string | null {
  const last = reader.list({ type: INVESTIGATION_NOTE, trace: episodeId, order: 'desc', limit: 1 })
    .events[0];
  const note = last?.data['note'];
  return typeof note === 'string' ? note : null;
}
