// The words and rules of the Learning page: which actions a pattern's state allows, shares as
// percentages.
import type { PatternAction } from './api.js';

/** A learned pattern's state (the wire says a string). */
export type PatternState = 'proposed' | 'promoted' | 'rejected' | 'disabled';

/** The actions each state allows (server/learning/learning.store.ts TRANSITIONS), delete last. */
export const ACTIONS_FROM: Readonly<Record<PatternState, readonly PatternAction[]>> = {
  proposed: ['promote', 'reject', 'delete'],
  promoted: ['disable', 'reject', 'delete'],
  disabled: ['enable', 'reject', 'delete'],
  rejected: ['promote', 'delete'],
};

export const isPatternState = (state: string): state is PatternState =>
  Object.hasOwn(ACTIONS_FROM, state);

/** The actions a pattern's state allows; none for a state this console does not know. */
export const actionsFrom = (state: string): readonly PatternAction[] =>
  isPatternState(state) ? ACTIONS_FROM[state] : [];

/** 0.4 → 40%, 0.625 → 62.5%: one decimal where there is one. */
export const percent = (share: number): string => `${String(Number((share * 100).toFixed(1)))}%`;
