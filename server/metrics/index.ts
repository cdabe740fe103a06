export { createMetrics, type Metrics } from './metrics.js';
export { metricsRoutes } from './metrics.routes.js';
