export { createStatusService, type StatusService } from './status.service.js';
export { healthRoutes, statusRoutes } from './status.routes.js';
export { modelsView } from './status.models.js';
