// The wire shapes of GET /v1/learning and /v1/learned (server/learning/learning.schemas.ts),
// their calls and query keys, and the words for an action on a pattern.
import { call } from '../../shared/api.js';

export const learningKeys = {
  all: ['learning'] as const,
  summary: ['learning', 'summary'] as const,
  patterns: ['learning', 'patterns'] as const,
};

export interface Precision {
  name: string;
  labels: number;
  correct: number;
  precision: number;
}

export interface Calibration {
  confidence: string;
  labels: number;
  correct: number;
  share: number | null;
}

export interface LearningBody {
  counts: {
    labels: number;
    correct: number;
    wrong: number;
    by_source: Record<string, number>;
    patterns: number;
  };
  precision: { causes: Precision[]; packs: Precision[] };
  demotions: { cause: string; precision: number; labels: number; since: string }[];
  calibration: Calibration[];
  rules: {
    demotion_bar: number;
    demotion_min_labels: number;
    demotion_window: number;
    pattern_min_support: number;
  };
}

export type PatternState = 'proposed' | 'promoted' | 'rejected' | 'disabled';

export interface Pattern {
  pattern_id: string;
  service: string;
  cause: string;
  fix: string | null;
  alerts: string[];
  state: PatternState;
  found_at: string;
  changed_by: string | null;
  changed_at: string | null;
  support: number;
  wrong: number;
}

export type PatternAction = 'promote' | 'reject' | 'disable' | 'enable' | 'delete';

/** The actions each state allows (server/learning/learning.store.ts TRANSITIONS), delete last. */
export const ACTIONS_FROM: Readonly<Record<PatternState, readonly PatternAction[]>> = {
  proposed: ['promote', 'reject', 'delete'],
  promoted: ['disable', 'reject', 'delete'],
  disabled: ['enable', 'reject', 'delete'],
  rejected: ['promote', 'delete'],
};

export const learningApi = {
  summary: () => call<LearningBody>('GET', '/v1/learning'),
  patterns: () => call<{ patterns: Pattern[] }>('GET', '/v1/learned'),
  decide: (id: string, action: PatternAction) =>
    call<unknown>('POST', `/v1/learned/${encodeURIComponent(id)}`, { action }),
  label: (body: { episode: string; correct: boolean; source: string }) =>
    call<{ episode_id: string; cause: string | null; confidence: string }>(
      'POST',
      '/v1/learning/label',
      body,
    ),
};

/** 0.4 → 40%, 0.625 → 62.5%: one decimal where there is one. */
export const percent = (share: number): string => `${String(Number((share * 100).toFixed(1)))}%`;
