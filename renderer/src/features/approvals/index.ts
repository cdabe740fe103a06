// The approvals feature as other folders see it: they import from here, never its files.
import { lazy } from 'react';
// Loaded on demand: most visits never open it.
export const ApprovalsPage = lazy(() =>
  import('./approvals.js').then((m) => ({ default: m.ApprovalsPage })),
);
// The page of a channel's approve/deny link: no sign-in, the signed token is the credential.
export const ApprovalLinkPage = lazy(() =>
  import('./approval-link.js').then((m) => ({ default: m.ApprovalLinkPage })),
);
// Small and static: the top bar counts the requests waiting for me on every page.
export { type ApprovalRequest, approvalApi } from './api.js';
export { approvalKeys, usePendingApprovals } from './queries.js';
export { quorumText, waitsFor } from './approval-words.js';
