// The events learning appends: labels on episodes, causes demoted and restored, learned
// patterns found and decided on.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const LEARNING_LABEL = 'learning.label';
export const LEARNING_UNLABELLED = 'learning.unlabelled';
export const LEARNING_DEMOTED = 'learning.demoted';
export const LEARNING_RESTORED = 'learning.restored';
export const PATTERN_FOUND = 'learning.pattern_found';
export const PATTERN_DECIDED = 'learning.pattern_decided';

const MaybeText = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description });

export const PATTERN_ACTIONS = ['promote', 'reject', 'disable', 'enable', 'delete'] as const;
export type PatternAction = (typeof PATTERN_ACTIONS)[number];

const Standing = {
  cause: Type.String(),
  precision: Type.Number({ description: 'share of its recent labelled diagnoses that were right' }),
  labels: Type.Integer({ description: 'how many labels that share is of' }),
};

export const learningEvents = {
  [LEARNING_LABEL]: Type.Object({
    episode_id: Type.String(),
    correct: Type.Boolean(),
    source: Type.String({ description: 'team (a verdict) or the outside source that labelled it' }),
    cause: MaybeText('the leading cause when labelled (null: none)'),
    pack: MaybeText('its pack'),
    confidence: Type.String({ description: "the leading cause's confidence (unproven: none)" }),
    service: Type.String(),
    alerts: Type.Array(Type.String()),
    fix: MaybeText('the first fix the cause names'),
    via: Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' })),
  }),
  [LEARNING_UNLABELLED]: Type.Object({
    episode_id: Type.String(),
    why: Type.String({ description: 'why the label no longer counts' }),
  }),
  [LEARNING_DEMOTED]: Type.Object({ ...Standing, bar: Type.Number() }),
  [LEARNING_RESTORED]: Type.Object(Standing),
  [PATTERN_FOUND]: Type.Object({
    pattern_id: Type.String(),
    service: Type.String(),
    cause: Type.String(),
    fix: MaybeText('the first fix the cause names'),
    alerts: Type.Array(Type.String()),
    support: Type.Integer({ description: 'labels that found it right' }),
  }),
  [PATTERN_DECIDED]: Type.Object({
    pattern_id: Type.String(),
    action: Type.Union([
      Type.Literal('promote'),
      Type.Literal('reject'),
      Type.Literal('disable'),
      Type.Literal('enable'),
      Type.Literal('delete'),
    ]),
    via: Type.Optional(Type.String()),
  }),
} as const;
export type LearningEvents = EventsOf<typeof learningEvents>;
