import { Type, type Static } from 'typebox';
import { BaselineReading, CauseReading, Obstacle, RelationRecord } from './study.events.js';

export const StartBody = Type.Object(
  {
    minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 120,
        description: 'how long the study may run (default 15, at most 120)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type StartBody = Static<typeof StartBody>;

export const StudyStart = Type.Object({
  study_id: Type.String(),
  minutes: Type.Integer(),
  ends_at: Type.String(),
});
export type StudyStart = Static<typeof StudyStart>;

const MaybeText = Type.Union([Type.String(), Type.Null()]);

export const StudyView = Type.Object({
  running: Type.Union([
    Type.Object({
      study_id: Type.String(),
      step: Type.Union([
        Type.Literal('baseline'),
        Type.Literal('relations'),
        Type.Literal('causes'),
      ]),
      service: MaybeText,
      cause: MaybeText,
      done: Type.Integer({ description: 'causes read so far, over every service' }),
      of: Type.Integer({ description: 'causes the study set out to read' }),
      ends_at: Type.String(),
      stopping: Type.Boolean({
        description: 'a stop was asked for: it ends before the next cause',
      }),
    }),
    Type.Null(),
  ]),
  study: Type.Union([
    Type.Object({
      study_id: Type.String(),
      status: Type.String({ description: 'running, finished, stopped or interrupted' }),
      minutes: Type.Integer(),
      started_at: Type.String(),
      ends_at: Type.String(),
      ended_at: MaybeText,
      why: MaybeText,
      by: Type.String(),
      relations_method: MaybeText,
      relations_note: MaybeText,
    }),
    Type.Null(),
  ]),
  last: Type.Array(
    Type.Object({
      service: Type.String(),
      study_id: Type.String(),
      at: Type.String(),
      complete: Type.Boolean(),
      window: Type.Object({ from: Type.String(), to: Type.String(), step_s: Type.Number() }),
      baseline: Type.Array(BaselineReading),
      obstacles: Type.Array(Obstacle),
      relations: Type.Array(RelationRecord),
      causes: Type.Array(CauseReading),
    }),
  ),
});
export type StudyView = Static<typeof StudyView>;
