// The approvals' query keys, and the pending requests read by the top bar and Live.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { approvalApi } from './api.js';

/** Under ['approvals']: every seq move refetches them (shell/ledger-refresh.tsx). */
export const approvalKeys = {
  all: ['approvals'] as const,
  list: (query: string) => [...approvalKeys.all, 'list', query] as const,
  detail: (id: string) => [...approvalKeys.all, 'detail', id] as const,
  /** The pending requests, for the top bar's count of those waiting for me. */
  pending: ['approvals', 'pending'] as const,
  /** Outside ['approvals'] on purpose: a link's preview is read once; using the link ends it. */
  link: (token: string) => ['approval-link', token] as const,
};

/** The pending requests (GET /v1/approvals?status=pending), shared by every reader. */
export function usePendingApprovals(enabled = true) {
  return useQuery({
    queryKey: approvalKeys.pending,
    queryFn: approvalApi.pending,
    enabled,
    placeholderData: keepPreviousData,
  });
}
