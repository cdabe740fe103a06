export {
  createModelUse,
  modelUseProjection,
  MODEL_CALLED,
  INVESTIGATION_NOTE,
  DECISION_S1,
  type ModelUse,
  type ModelUseState,
} from './service.js';
export { localModelFile, modelSettings, originOf, type ModelSystem } from './settings.js';
export { openLocalModel, type LocalModel, type LocalModelView } from './local.js';
export { writeNote, noteOf, NOTE_SCHEMA } from './note.js';
export { gateEvidence, GATE_SCHEMA } from './gate.js';
export { gateAction, ACTION_SCHEMA } from './gate-action.js';
export { gatePattern, PATTERN_SCHEMA } from './gate-pattern.js';
export { placementCheck, answerCheck, hostHasGpu, ceilingResets } from './doctor.js';
export { createInvestigator } from './investigator.js';
export {
  investigatorProjection,
  MODEL_PROPOSED,
  MODEL_INVESTIGATED,
} from './investigator-session.js';
