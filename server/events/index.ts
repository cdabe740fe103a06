export { createEventsService, type EventsService } from './events.service.js';
export { eventsRoutes } from './events.routes.js';
export { INGEST_PREFIXES } from './events.schemas.js';
export { HUMAN_ACTION, HUMAN_DEPLOY, ingestedEvents } from './events.events.js';
