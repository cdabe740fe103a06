// The ledger queries' keys (the Audit page's pages of events).
export const auditKeys = {
  all: ['ledger'] as const,
  page: (query: string) => ['ledger', query] as const,
};
