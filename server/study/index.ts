// Study: a timed, read-only walk over the estate that learns each service's baseline,
// obstacles, relations and readable causes (docs/study.md).
export { createStudyStore, type StudyStore, type RelationRow } from './study.store.js';
export {
  createStudyService,
  DEFAULT_MINUTES,
  MAX_MINUTES,
  type CheckRead,
  type StudyService,
} from './study.service.js';
export { studyRoutes } from './study.routes.js';
export { studyEvents, type StudyEvents } from './study.events.js';
export type { StudyView } from './study.schemas.js';
