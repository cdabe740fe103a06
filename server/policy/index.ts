export {
  createPolicyStore,
  type PolicyStore,
  type PolicyRow,
  POLICY_SET,
  POLICY_LOADED,
} from './policy.store.js';
export {
  createPolicyService,
  readPolicyFile,
  sha256Of,
  PolicyFileError,
  type PolicyService,
} from './policy.service.js';
export { policyRoutes } from './policy.routes.js';
export {
  checkPolicy,
  DEFAULT_POLICY,
  PolicySource,
  type Policy,
  type PolicyInput,
  type PolicyView,
  type Grouping,
  type MaintenanceWindow,
  type InhibitRule,
  type Matchers,
  type Escalation,
  type EscalationStep,
  type EscalationWho,
  type ChangeWindow,
  type WeeklyWindow,
  type ActionRule,
  type ActionsPolicy,
} from './policy.schemas.js';
export {
  changeWindowNow,
  fixPermission,
  actionRuleFor,
  DEFAULT_MAX_RISK,
  type ChangeWindowHit,
  type FixPermission,
} from './actions-policy.js';
export {
  keyValue,
  matches,
  wildcardMatch,
  maintenanceFor,
  inhibitorFor,
  groupKey,
  type SignalFacts,
  type FiringSignal,
  type MaintenanceHit,
  type InhibitionHit,
} from './suppression.js';
export { createNoiseControl } from './noise-control.js';
export { policyEvents, type PolicyEvents } from './policy.events.js';
