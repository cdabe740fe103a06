// Approval requests (docs/approvals.md): the wire shapes (the server's own types,
// server/approvals/approvals.schemas.ts) and the calls. The top bar's count uses this file, so
// it stays small: it is part of the first load.
import type {
  ApprovalDecisionEntry,
  ApprovalList,
  ApprovalRequestBody,
  LinkPreview,
  LinkUsed,
} from '../../../../server/approvals/approvals.schemas.js';
import { call } from '../../shared/api.js';

export type { ApprovalDecisionEntry, ApprovalList, LinkPreview, LinkUsed };
/** GET /v1/approvals/<id>, and the answer of approve, deny and withdraw. */
export type ApprovalRequest = ApprovalRequestBody;
export type Risk = ApprovalRequest['risk'];
export type ApprovalKind = ApprovalRequest['kind'];
export type ApprovalStatus = ApprovalRequest['status'];

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
