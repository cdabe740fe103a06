// The ledger queries' keys (the Audit page's pages of events, and the chain's verification).
const all = ['ledger'] as const;

export const auditKeys = {
  all,
  page: (query: string) => [...all, query] as const,
};
