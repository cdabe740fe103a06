export { createLearningStore, type LearningStore } from './learning.store.js';
export {
  createLearningService,
  demotionReader,
  type LearningService,
  type Said,
} from './learning.service.js';
export { learningRoutes } from './learning.routes.js';
export { learningEvents, type LearningEvents } from './learning.events.js';
export { DEMOTION_BAR } from './learning.figures.js';
