// The approvals' query keys.

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
