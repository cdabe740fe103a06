export {
  createDoctor,
  worst,
  CheckStatus,
  type Doctor,
  type DoctorCheck,
  type DoctorReport,
  type CheckResult,
} from './doctor.service.js';
export {
  mainCheck,
  ledgerCheck,
  dataVolumeCheck,
  licenceCheck,
  connectionsCheck,
  intakeCheck,
  type ConnectionState,
  investigationsCheck,
  FREE_WARN,
  FREE_FAIL,
  freeShare,
} from './core-checks.js';
export { doctorRoutes } from './doctor.routes.js';
export { snapshotsCheck, type SnapshotFreshness } from './snapshots-check.js';
export {
  escalationCheck,
  type EscalationCheckDeps,
  type EscalationStepRef,
} from './escalation-check.js';
