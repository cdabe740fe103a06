// Approval requests: an action of an episode, a raise of autonomy, or fix mode draft, waiting
// for people. Shared by approvals (the domain), autonomy, act and the orchestrator.
import type { Risk } from '../packs/index.js';

export type ApprovalKind = 'action' | 'autonomy' | 'fix_mode';
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'withdrawn' | 'expired';

export interface ApprovalDecisionEntry {
  /** a person's name (as it was then), `admin-token`, `channel:<connector>` or `lab-approver` */
  readonly by: string;
  /**
   * Who counts: a person's id, `admin-token`, `channel:<connector>` (a link sent to no one
   * person) or `lab-approver`. Each counts once toward the quorum.
   */
  readonly by_id: string;
  /** With the admin token: the id of the person `by` named (recorded, never counted). */
  readonly on_behalf_of?: string;
  readonly decision: 'approve' | 'deny';
  readonly at: string;
  /** `console` (the API), `link` (a signed channel link), `lab-approver` */
  readonly via: string;
  readonly reason: string | null;
}

export interface ApprovalChannelEntry {
  readonly channel: string;
  /** index of the policy's escalation step */
  readonly step: number;
  readonly at: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface ApprovalRequest {
  /** `ap-<UTC timestamp>-<hex>` */
  readonly request_id: string;
  readonly kind: ApprovalKind;
  readonly status: ApprovalStatus;
  readonly title: string;
  readonly summary: string;
  readonly service: string | null;
  readonly risk: Risk;
  readonly episode_id: string | null;
  /**
   * What is approved, exactly: action {pack, fix, connector, op, args}; autonomy
   * {service, level}; fix_mode {mode}. The approval binds to its hash.
   */
  readonly subject: Readonly<Record<string, unknown>>;
  /** hex SHA-256 of canonicalJson(subject) */
  readonly subject_sha256: string;
  /** distinct approvers needed (never the requester) */
  readonly quorum: number;
  /** the role an approver must hold: responder for actions, admin for autonomy and fix mode */
  readonly approver_role: 'responder' | 'admin';
  readonly requested_by: string;
  /** the requester's id (a person's id, `admin-token`, `system`): never an approver */
  readonly requested_by_id: string;
  /** added when read out: the requesting person's name now (null when no person) */
  readonly requested_by_name?: string | null;
  /** added when read out: the requester was a person who has since been removed */
  readonly requested_by_removed?: boolean;
  readonly requested_at: string;
  readonly expires_at: string;
  readonly decisions: readonly ApprovalDecisionEntry[];
  readonly channels: readonly ApprovalChannelEntry[];
  readonly closed_at: string | null;
  /** why it was withdrawn, denied or expired */
  readonly reason: string | null;
}

export interface OpenApproval {
  readonly kind: ApprovalKind;
  readonly title: string;
  readonly summary: string;
  readonly service: string | null;
  readonly risk: Risk;
  readonly episode_id: string | null;
  readonly subject: Readonly<Record<string, unknown>>;
  readonly quorum: number;
  readonly approver_role: 'responder' | 'admin';
  /** who asks: `system` for the orchestrator, else a person */
  readonly requested_by: string;
  /** the requester's id (a person's id, `admin-token`); `requested_by` when absent */
  readonly requested_by_id?: string;
  /** seconds until it expires; default 24 h */
  readonly ttl_s?: number;
}

/** Called after the commit that ends a request (approved, denied, withdrawn, expired). */
export type ApprovalDecidedHandler = (request: ApprovalRequest) => void | Promise<void>;
