// Approvals: requests for an action, a raise of autonomy or fix mode draft, decided by
// people (two-person rule), sent through the escalation channels with signed links.
export type {
  ApprovalChannelEntry,
  ApprovalDecidedHandler,
  ApprovalDecisionEntry,
  ApprovalKind,
  ApprovalRequest,
  ApprovalStatus,
  OpenApproval,
} from './types.js';
export {
  createApprovalsStore,
  APPROVAL_CLOSED,
  APPROVAL_DECIDED,
  APPROVAL_EVENTS,
  APPROVAL_QUERY_FIELDS,
  APPROVAL_REQUESTED,
  APPROVAL_SENT,
  FACETS as APPROVAL_FACETS,
  type ApprovalsStore,
} from './approvals.store.js';
export {
  createApprovalsService,
  newRequestId,
  subjectSha256,
  DEFAULT_TTL_S,
  type ApprovalsService,
  type SentRecord,
} from './approvals.service.js';
export { approversOf, displayName, type Approver, type ApproverPerson } from './approvers.js';
export {
  createEscalation,
  linkUrl,
  requestUrl,
  realEvery,
  type Escalation,
  type EscalationDeps,
  type Every,
} from './escalation.js';
export {
  createLabApprover,
  LAB_APPROVER,
  realAfter,
  type After,
  type LabApprover,
} from './lab-approver.js';
export { pendingCheck, labApproverCheck, PENDING_WARN_S } from './approvals-checks.js';
export { approvalsRoutes } from './approvals.routes.js';
export { ApprovalRequestBody } from './approvals.schemas.js';
export type {
  ApprovalList,
  ApprovalListQuery,
  LinkPreview,
  LinkUsed,
} from './approvals.schemas.js';
export { approvalEvents, type ApprovalEvents } from './approvals.events.js';
