// The wire shapes of GET /v1/learning and /v1/learned and their actions (the server's own
// types, server/learning/learning.schemas.ts) and the calls.
import type {
  DecideAnswer,
  DecideBody,
  LabelBody,
  LabelView,
  LearnedView,
  LearningView,
  PatternView,
} from '../../../../server/learning/learning.schemas.js';
import { call } from '../../shared/api.js';

/** GET /v1/learning: counts, precision, demotions, calibration and the rules. */
export type LearningBody = LearningView;
export type Precision = LearningView['precision']['causes'][number];
export type Calibration = LearningView['calibration'][number];
export type Pattern = PatternView;
export type PatternAction = DecideBody['action'];

export const learningApi = {
  summary: () => call<LearningView>('GET', '/v1/learning'),
  patterns: () => call<LearnedView>('GET', '/v1/learned'),
  decide: (id: string, action: PatternAction) =>
    call<DecideAnswer>('POST', `/v1/learned/${encodeURIComponent(id)}`, { action }),
  label: (body: LabelBody) => call<LabelView>('POST', '/v1/learning/label', body),
};
