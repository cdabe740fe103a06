export {
  signArtefact,
  signerKey,
  verifyArtefact,
  artefactFileOf,
  type Artefact,
  type ArtefactFile,
  type SignerKey,
} from './artefact.js';
export {
  createMlArtefacts,
  readMlDir,
  trustKeyOf,
  ARTEFACT_KINDS,
  ML_FILE_MAX_BYTES,
  type MlArtefacts,
  type MlReport,
} from './ml-dir.js';
export { relationsOf, RELATIONS_MAX_LINKS, type RelationLink } from './relations.js';
export { relationSuggestions, mlArtefactsCheck, type LinkSuggestion } from './ml-uses.js';
