// The incident queries' keys: the list and each incident share `all`, so one invalidation
// refreshes both when the ledger moves.
export const incidentKeys = {
  all: ['incident'] as const,
  list: (query: string) => ['incident', 'list', query] as const,
  detail: (id: string) => ['incident', id] as const,
};
