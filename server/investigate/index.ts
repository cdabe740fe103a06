// Investigation: the engine that runs the check packs, the decision table, and the
// orchestrator that takes every episode through them (docs/investigation.md).
export {
  createEngine,
  variablesFor,
  type Engine,
  type Investigation,
  type PreparedFix,
} from './engine.js';
export { decide, afterAction, withoutAction, DECISION_TABLE } from './decide.js';
export { createInvestigation, type Investigation as InvestigationRuntime } from './wire.js';
export { NOT_COVERED } from './orchestrator.js';
export {
  createInvestigationsStore,
  DECISION_MADE,
  INVESTIGATION_STEP,
  type InvestigationsStore,
} from './investigations.store.js';
export { accuracyCheck, ACCURACY_FLOOR } from './doctor-checks.js';
export type { ConnectorLike, EstateLike } from './plan.js';
export type * from './types.js';
// The model steps of the investigation (System 1's gates, System 2's investigator, the note,
// the local runtime): advisers inside the room they serve (docs/models.md).
export * from './models/index.js';
export { investigateEvents, type InvestigateEvents } from './investigate.events.js';
export { globMatches } from './match.js';
