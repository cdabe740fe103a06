export {
  createActions,
  fillCall,
  planMissing,
  callText,
  fixRef,
  subjectOf,
  checkOf,
  judge,
  type Actions,
} from './act.service.js';
export type {
  ActDeps,
  ActionPlan,
  DryRunResult,
  ExecuteOutcome,
  ExecuteResult,
  FilledCall,
  FixRef,
  PolicyNow,
  RecheckContext,
  TemplateValue,
} from './act.types.js';
export { ACTION_FIX_STATUS, actEvents, type ActEvents } from './act.events.js';
