// The events an investigation appends: its steps, findings, hypotheses and decision, and the
// models' calls, proposals, gates and note. Nested documents (findings, hypotheses, packs,
// changes) are described by their own types in this domain and kept open here.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Episode = { episode_id: Type.String() };
const Doc = Type.Unknown();
const Texts = Type.Array(Type.String());

export const investigateEvents = {
  'investigation.started': Type.Object({
    ...Episode,
    service: Type.String(),
    alerts: Texts,
    queue_s: Type.Number({ description: 'seconds from the episode opening to this start' }),
  }),
  'investigation.skipped': Type.Object({ ...Episode, service: Type.String(), why: Type.String() }),
  'investigation.step': Type.Object({
    ...Episode,
    step: Type.String(),
    changes: Type.Optional(Type.Array(Doc, { description: 'step changes: what changed' })),
  }),
  'investigation.hypotheses': Type.Object({
    ...Episode,
    packs: Type.Array(Doc),
    hypotheses: Type.Array(Doc),
  }),
  'investigation.waiting': Type.Object({
    ...Episode,
    request_id: Type.String(),
    decision: Type.String(),
  }),
  'investigation.finished': Type.Object({
    ...Episode,
    decision: Type.String(),
    outcome: Type.Optional(Type.String()),
    result: Type.Optional(Type.String()),
    action: Type.Optional(Type.String()),
    confidence: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    fix: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    confirmed: Type.Optional(Type.Array(Doc)),
  }),
  'investigation.recovered': Type.Object({ ...Episode, what: Type.String() }),
  'investigation.note': Type.Object({
    ...Episode,
    note: Type.String(),
    source: Type.String({ description: 'model or template' }),
  }),
  'check.ran': Type.Object({ ...Episode, finding: Doc }),
  'decision.made': Type.Object({
    ...Episode,
    decision: Type.String(),
    why: Type.Optional(Type.String()),
    next: Type.Optional(Doc),
    handover: Type.Optional(Type.Boolean()),
  }),
  'decision.s1': Type.Object({
    ...Episode,
    gate: Type.String(),
    verified: Type.Boolean(),
    why: Type.Optional(Type.String()),
    error_kind: Type.Optional(Type.String()),
  }),
  'model.called': Type.Object({
    purpose: Type.String(),
    system: Type.String({ description: 's1 or s2' }),
    model: Type.String(),
    prompt_tokens: Type.Number(),
    completion_tokens: Type.Number(),
    seconds: Type.Number(),
    cached: Type.Boolean(),
    ok: Type.Boolean(),
    error_kind: Type.Optional(Type.String()),
  }),
  'model.proposed': Type.Object({
    ...Episode,
    investigator: Type.String(),
    check: Type.String(),
    service: Type.String(),
    why: Type.String(),
    read: Type.Number(),
    depth: Type.Number(),
    checks: Texts,
  }),
  'model.investigated': Type.Object({
    ...Episode,
    investigator: Type.String(),
    stopped: Type.String(),
    error_kind: Type.Optional(Type.String()),
    s2_calls: Type.Number(),
    reads: Type.Number(),
    depth: Type.Number(),
    bounds: Type.Object({ s2_calls: Type.Number(), reads: Type.Number(), depth: Type.Number() }),
    checks: Type.Array(Doc),
  }),
} as const;
export type InvestigateEvents = EventsOf<typeof investigateEvents>;
