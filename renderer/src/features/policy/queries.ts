// The policy query's key: every ledger seq move refetches it (shell/ledger-refresh.tsx).
export const policyKeys = {
  all: ['policy'] as const,
};
