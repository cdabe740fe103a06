// Approval requests (docs/approvals.md): the wire shapes (as
// server/approvals/types.ts and approvals.schemas.ts), the query keys and the calls, the
// signed channel links, and the words for quorum state. The top bar's count uses this file,
// so it stays small: it is part of the first load.
import { call, roleAtLeast } from '../../shared/api.js';

export type Risk = 'low' | 'medium' | 'high';
export type ApprovalKind = 'action' | 'autonomy' | 'fix_mode';
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'withdrawn' | 'expired';

export interface ApprovalDecisionEntry {
  by: string;
  /** who counts: a person's id, admin-token, channel:<connector>, lab-approver */
  by_id?: string;
  decision: 'approve' | 'deny';
  at: string;
  via: string;
  reason: string | null;
}

export interface ApprovalChannelEntry {
  channel: string;
  step: number;
  at: string;
  ok: boolean;
  detail: string;
}

export interface ApprovalRequest {
  request_id: string;
  kind: ApprovalKind;
  status: ApprovalStatus;
  title: string;
  summary: string;
  service: string | null;
  risk: Risk;
  episode_id: string | null;
  subject: Record<string, unknown>;
  subject_sha256: string;
  quorum: number;
  approver_role: 'responder' | 'admin';
  requested_by: string;
  /** the requester's id: names change, ids do not */
  requested_by_id?: string;
  /** the requesting person's name now; null when the requester is no person */
  requested_by_name?: string | null;
  /** the requester was a person who has since been removed */
  requested_by_removed?: boolean;
  requested_at: string;
  expires_at: string;
  decisions: ApprovalDecisionEntry[];
  channels: ApprovalChannelEntry[];
  closed_at: string | null;
  reason: string | null;
}

export interface ApprovalList {
  requests: ApprovalRequest[];
  total: number;
  facets: Partial<Record<'status' | 'risk' | 'kind', Record<string, number>>>;
}

export const STATUSES: readonly ApprovalStatus[] = [
  'pending',
  'approved',
  'denied',
  'withdrawn',
  'expired',
];
export const RISKS: readonly Risk[] = ['low', 'medium', 'high'];
export const KINDS: readonly ApprovalKind[] = ['action', 'autonomy', 'fix_mode'];

/** GET /v1/approvals/link: what a signed link would do; nothing is used. */
export interface LinkPreview {
  decision: 'approve' | 'deny';
  /** The channel (connector) the link was sent on, when the service recorded it. */
  channel: string | null;
  /** Who using it counts as: the person it was sent to, or `channel:<connector>`. */
  counts_as?: string;
  expires_at: string;
  request: ApprovalRequest;
}

/** POST /v1/approvals/link: the decision recorded (by `channel:<connector>`) and the request. */
export interface LinkUsed {
  decision: 'approve' | 'deny';
  by: string;
  request: ApprovalRequest;
}

/** Under ['approvals']: every seq move refetches them (queries.ts `useLive`). */
export const approvalKeys = {
  all: ['approvals'] as const,
  list: (query: string) => ['approvals', 'list', query] as const,
  detail: (id: string) => ['approvals', 'detail', id] as const,
  /** The pending requests, for the top bar's count of those waiting for me. */
  pending: ['approvals', 'pending'] as const,
};

/** Outside ['approvals']: a link's preview is read once; using the link ends it. */
export const linkKey = (token: string) => ['approval-link', token] as const;

/** How many pending requests the top bar reads to count those waiting for me (the API's most). */
export const PENDING_LIMIT = 500;

const path = (id: string, what = '') =>
  `/v1/approvals/${encodeURIComponent(id)}${what === '' ? '' : `/${what}`}`;
const withReason = (reason: string | undefined) =>
  reason === undefined || reason.trim() === '' ? {} : { reason: reason.trim() };

export const approvalApi = {
  list: (query: string) =>
    call<ApprovalList>('GET', `/v1/approvals${query === '' ? '' : `?${query}`}`),
  get: (id: string) => call<ApprovalRequest>('GET', path(id)),
  approve: (id: string, reason?: string) =>
    call<ApprovalRequest>('POST', path(id, 'approve'), withReason(reason)),
  deny: (id: string, reason: string) =>
    call<ApprovalRequest>('POST', path(id, 'deny'), { reason: reason.trim() }),
  withdraw: (id: string, reason: string) =>
    call<ApprovalRequest>('POST', path(id, 'withdraw'), withReason(reason)),
  pending: () =>
    call<ApprovalList>('GET', `/v1/approvals?status=pending&limit=${String(PENDING_LIMIT)}`),
  /** No sign-in needed: the signed single-use token is the credential. */
  peekLink: (token: string) =>
    call<LinkPreview>('GET', `/v1/approvals/link?token=${encodeURIComponent(token)}`),
  redeemLink: (token: string, reason?: string) =>
    call<LinkUsed>('POST', '/v1/approvals/link', { token, ...withReason(reason) }),
};

/** The distinct approvers so far (each counts once toward the quorum). */
export function approversOf(r: ApprovalRequest): string[] {
  return [...new Set(r.decisions.filter((d) => d.decision === 'approve').map((d) => d.by))];
}

/** The distinct approvers by id: what the quorum counts (names change). */
export function approverIdsOf(r: ApprovalRequest): string[] {
  return [
    ...new Set(r.decisions.filter((d) => d.decision === 'approve').map((d) => d.by_id ?? d.by)),
  ];
}

/** "1 of 2 approvals" */
export function quorumText(r: ApprovalRequest): string {
  const n = approverIdsOf(r).length;
  return `${String(n)} of ${String(r.quorum)} approval${r.quorum === 1 ? '' : 's'}`;
}

/**
 * Who asked, as people know them: the person's name now; a removed person by the id that is
 * all that is left of them; else the name recorded (system, the admin token's `by`).
 */
export function requesterOf(r: ApprovalRequest): string {
  if (r.requested_by_name !== undefined && r.requested_by_name !== null) return r.requested_by_name;
  if (r.requested_by_removed === true) {
    const id = [r.requested_by_id, r.requested_by].find((x) => x?.startsWith('usr-') === true);
    return `removed person ${id ?? r.requested_by}`;
  }
  return r.requested_by;
}

/** Whether the signed-in person asked for this request (the requester never approves it). */
export function isMine(
  r: ApprovalRequest,
  me: { name: string; user_id?: string | null; email?: string } | undefined,
): boolean {
  if (me === undefined) return false;
  const who = [me.name, me.user_id ?? '', me.email ?? ''].filter((s) => s !== '');
  return [r.requested_by_id, r.requested_by].some((x) => x !== undefined && who.includes(x));
}

/** Whether this person approved the request already, by id (names change). */
export function hasApproved(
  r: ApprovalRequest,
  me: { name: string; user_id?: string | null },
): boolean {
  return approverIdsOf(r).includes(me.user_id ?? me.name);
}

/** Waiting for me: pending, not mine, my role may approve it, and I have not yet. */
export function waitsFor(
  r: ApprovalRequest,
  me: { name: string; role: string; user_id?: string | null; email?: string } | undefined,
): boolean {
  return (
    r.status === 'pending' &&
    me !== undefined &&
    !isMine(r, me) &&
    roleAtLeast(me.role, r.approver_role) &&
    !hasApproved(r, me)
  );
}

export const STATUS_GLYPH: Record<ApprovalStatus, string> = {
  pending: '◌',
  approved: '✓',
  denied: '✖',
  withdrawn: '↺',
  expired: '–',
};

export const RISK_GLYPH: Record<Risk, string> = { low: '●', medium: '◆', high: '▲' };
