export {
  createModelUse,
  modelUseProjection,
  type ModelUse,
  type ModelUseState,
} from './service.js';
export { localModelFile, modelSettings, originOf, type ModelSystem } from './settings.js';
export { openLocalModel, type LocalModel, type LocalModelView } from './local.js';
export { writeNote, noteOf } from './note.js';
export { gateEvidence } from './gate.js';
export { gateAction } from './gate-action.js';
export { gatePattern } from './gate-pattern.js';
export { placementCheck, answerCheck, hostHasGpu } from './doctor.js';
export { createInvestigator } from './investigator.js';
export {
  investigatorProjection,
  MODEL_PROPOSED,
  MODEL_INVESTIGATED,
} from './investigator-session.js';
