export {
  createModelUse,
  modelUseProjection,
  MODEL_CALLED,
  INVESTIGATION_NOTE,
  DECISION_S1,
  type ModelUse,
} from './service.js';
export { modelSettings, originOf, type ModelSystem } from './settings.js';
export { writeNote, noteOf, withNotes, NOTE_SCHEMA } from './note.js';
export { gateEvidence, GATE_SCHEMA } from './gate.js';
export { placementCheck, answerCheck, hostHasGpu } from './doctor.js';
