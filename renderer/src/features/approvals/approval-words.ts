// The words and glyphs of approval requests: quorum state ("1 of 2 approvals"), who asked,
// whether one waits for me. The top bar counts with `waitsFor`, so this file stays small too.
import { roleAtLeast } from '../../shared/api.js';
import type { ApprovalKind, ApprovalRequest, ApprovalStatus, Risk } from './api.js';

export const STATUSES: readonly ApprovalStatus[] = [
  'pending',
  'approved',
  'denied',
  'withdrawn',
  'expired',
];
export const RISKS: readonly Risk[] = ['low', 'medium', 'high'];
export const KINDS: readonly ApprovalKind[] = ['action', 'autonomy', 'fix_mode'];

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
