// The incident queries' keys: the list and each incident share `all`, so one invalidation
// refreshes both when the ledger moves.
const all = ['incident'] as const;

export const incidentKeys = {
  all,
  list: (query: string) => [...all, 'list', query] as const,
  detail: (id: string) => [...all, id] as const,
};
