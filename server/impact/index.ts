export { createImpactStore, type ImpactStore, IMPACT_SET } from './impact.store.js';
export { createImpactService, type ImpactService } from './impact.service.js';
export { impactRoutes } from './impact.routes.js';
export { impactEvents, type ImpactEvents } from './impact.events.js';
