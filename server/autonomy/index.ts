// Autonomy levels, fix mode and halt: what the service may do on its own.
export {
  createAutonomyStore,
  AUTONOMY_EVENTS,
  AUTONOMY_RAISE_REQUESTED,
  AUTONOMY_SET,
  FIX_MODE_SET,
  SYSTEM_HALT,
  SYSTEM_RESUME,
  type AutonomyStore,
} from './autonomy.store.js';
export {
  createAutonomyService,
  DEFAULT_LEVEL,
  DEFAULT_SERVICE,
  type AutonomyService,
  type PersonRef,
  type SetResult,
} from './autonomy.service.js';
export {
  LEVELS,
  FIX_MODES,
  RAISE_QUORUM,
  DRAFTED_QUORUM,
  type AutonomyLevel,
  type AutonomyView,
  type FixMode,
  type Halted,
} from './autonomy.schemas.js';
export { autonomyPolicyCheck } from './autonomy-checks.js';
export { autonomyRoutes } from './autonomy.routes.js';
export { autonomyEvents, type AutonomyEvents } from './autonomy.events.js';
