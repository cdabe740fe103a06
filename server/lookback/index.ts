// Lookback: resolved incidents over a window, counted by the connections that keep history.
export { createLookbackStore, type LookbackStore } from './lookback.store.js';
export { createLookbackService, type LookbackService } from './lookback.service.js';
export { lookbackRoutes } from './lookback.routes.js';
export { lookbackEvents, LOOKBACK_REPORTED, type LookbackEvents } from './lookback.events.js';
export type { LookbackReport, LookbackView } from './lookback.schemas.js';
