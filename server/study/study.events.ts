// The events a study appends: started; one per service when its step is done (what it
// learned); the relations between services; and how it ended (finished, stopped, or
// interrupted when the process died with it running). One event per service keeps the
// volume to a few dozen per study, whatever the number of causes read.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const STUDY_STARTED = 'study.started';
export const STUDY_SERVICE_DONE = 'study.service_done';
export const STUDY_RELATIONS = 'study.relations';
export const STUDY_FINISHED = 'study.finished';
export const STUDY_STOPPED = 'study.stopped';
export const STUDY_INTERRUPTED = 'study.interrupted';

const Via = Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' }));

export const BaselineReading = Type.Object({
  reading: Type.String({ description: 'e.g. cpu, memory, up' }),
  query: Type.String({ description: 'the PromQL range query it was read with' }),
  n: Type.Integer({ description: 'points read' }),
  min: Type.Number(),
  max: Type.Number(),
  mean: Type.Number(),
  p5: Type.Number({ description: 'the normal range is p5 to p95' }),
  p50: Type.Number(),
  p95: Type.Number(),
});

export const Obstacle = Type.Object({
  what: Type.String({ description: 'what could not be read' }),
  reason: Type.String({ description: 'why, as the connector or the plan said it' }),
  fix: Type.String({ description: 'what the operator can do about it' }),
});

export const CauseReading = Type.Object({
  cause: Type.String(),
  packs: Type.Array(Type.String()),
  checks: Type.Integer({ description: 'checks the cause rests on' }),
  readable: Type.Integer({ description: 'of those, how many could be read' }),
  unreadable: Type.Array(Type.Object({ check: Type.String(), why: Type.String() })),
});

export const RelationRecord = Type.Object({
  from: Type.String({ description: 'the follower: as a suggestion, it depends on `to`' }),
  to: Type.String({ description: 'the leader' }),
  lag: Type.Integer({ description: 'steps by which `to` leads (0: together)' }),
  strength: Type.Number(),
  score: Type.Number(),
  readings: Type.String(),
  method: Type.Union([Type.Literal('lagged_correlation'), Type.Literal('causal_service')]),
});

export const studyEvents = {
  [STUDY_STARTED]: Type.Object({
    study_id: Type.String(),
    minutes: Type.Integer(),
    ends_at: Type.String(),
    services: Type.Array(Type.String(), { description: 'the estate services it will walk' }),
    via: Via,
  }),
  [STUDY_SERVICE_DONE]: Type.Object({
    study_id: Type.String(),
    service: Type.String(),
    window: Type.Object({ from: Type.String(), to: Type.String(), step_s: Type.Number() }),
    baseline: Type.Array(BaselineReading),
    obstacles: Type.Array(Obstacle),
    causes: Type.Array(CauseReading),
    complete: Type.Boolean({
      description: 'false: the study ended (stop or deadline) before every cause was read',
    }),
  }),
  [STUDY_RELATIONS]: Type.Object({
    study_id: Type.String(),
    method: Type.Union([Type.Literal('lagged_correlation'), Type.Literal('causal_service')]),
    note: Type.Union([Type.String(), Type.Null()], {
      description: 'why the causal service was not used, when it is set',
    }),
    step_s: Type.Number(),
    tau: Type.Integer(),
    relations: Type.Array(RelationRecord),
  }),
  [STUDY_FINISHED]: Type.Object({
    study_id: Type.String(),
    why: Type.Union([Type.Literal('done'), Type.Literal('deadline')]),
  }),
  [STUDY_STOPPED]: Type.Object({ study_id: Type.String(), via: Via }),
  [STUDY_INTERRUPTED]: Type.Object({ study_id: Type.String(), why: Type.String() }),
} as const;
export type StudyEvents = EventsOf<typeof studyEvents>;
