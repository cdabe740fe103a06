import { Type, type Static } from 'typebox';
import type { PATTERN_ACTIONS } from './learning.events.js';

const EpisodeId = Type.String({ pattern: '^ep-[0-9TZ]+-[0-9a-f]+$', maxLength: 64 });
const MaybeText = Type.Union([Type.String(), Type.Null()]);

export const LabelBody = Type.Object(
  {
    episode: EpisodeId,
    correct: Type.Boolean({ description: "whether the service's diagnosis was right" }),
    source: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'who labelled it: a ticketing tool, a review (team is the team verdict)',
    }),
  },
  { additionalProperties: false },
);
export type LabelBody = Static<typeof LabelBody>;

export const LabelView = Type.Object({
  episode_id: Type.String(),
  correct: Type.Boolean(),
  source: Type.String(),
  cause: MaybeText,
  confidence: Type.String(),
  by: Type.String(),
  at: Type.String(),
  seq: Type.Integer(),
});
export type LabelView = Static<typeof LabelView>;

const Precision = Type.Object({
  name: Type.String(),
  labels: Type.Integer(),
  correct: Type.Integer(),
  precision: Type.Number(),
});

export const LearningView = Type.Object({
  counts: Type.Object({
    labels: Type.Integer(),
    correct: Type.Integer(),
    wrong: Type.Integer(),
    by_source: Type.Record(Type.String(), Type.Integer()),
    patterns: Type.Integer(),
  }),
  precision: Type.Object({ causes: Type.Array(Precision), packs: Type.Array(Precision) }),
  demotions: Type.Array(
    Type.Object({
      cause: Type.String(),
      precision: Type.Number(),
      labels: Type.Integer(),
      since: Type.String(),
    }),
  ),
  calibration: Type.Array(
    Type.Object({
      confidence: Type.String(),
      labels: Type.Integer(),
      correct: Type.Integer(),
      share: Type.Union([Type.Number(), Type.Null()]),
    }),
  ),
  rules: Type.Object({
    demotion_bar: Type.Number(),
    demotion_min_labels: Type.Integer(),
    demotion_window: Type.Integer(),
    pattern_min_support: Type.Integer(),
  }),
});
export type LearningView = Static<typeof LearningView>;

export const PatternView = Type.Object({
  pattern_id: Type.String(),
  service: Type.String(),
  cause: Type.String(),
  fix: MaybeText,
  alerts: Type.Array(Type.String()),
  state: Type.String(),
  found_at: Type.String(),
  changed_by: MaybeText,
  changed_at: MaybeText,
  support: Type.Integer(),
  wrong: Type.Integer(),
});
export type PatternView = Static<typeof PatternView>;

export const LearnedView = Type.Object({ patterns: Type.Array(PatternView) });
export type LearnedView = Static<typeof LearnedView>;

export const PatternParams = Type.Object({
  id: Type.String({ pattern: '^lp-[0-9a-f]{12}$' }),
});

// A tuple (as const), so that Static<> names each action; satisfies keeps it to the store's.
const PatternActions = [
  Type.Literal('promote'),
  Type.Literal('reject'),
  Type.Literal('disable'),
  Type.Literal('enable'),
  Type.Literal('delete'),
] as const satisfies readonly { const: (typeof PATTERN_ACTIONS)[number] }[];

export const DecideBody = Type.Object(
  { action: Type.Union([...PatternActions]) },
  { additionalProperties: false },
);
export type DecideBody = Static<typeof DecideBody>;

export const DecideAnswer = Type.Union([
  PatternView,
  Type.Object({ pattern_id: Type.String(), deleted: Type.Literal(true) }),
]);
export type DecideAnswer = Static<typeof DecideAnswer>;
