export {
  createIntakeStore,
  type IntakeStore,
  type SignalRow,
  SIGNAL_FIRED,
  SIGNAL_RESOLVED,
  SEVERITY_ORDER,
  worstSeveritySql,
} from './intake.store.js';
export {
  createIntakeService,
  serviceOf,
  SERVICE_LABELS,
  type IntakeService,
} from './intake.service.js';
export { intakeRoutes } from './intake.routes.js';
export type { Signal, Severity, SignalStatus } from './signal.js';
export { intakeEvents, type IntakeEvents } from './intake.events.js';
