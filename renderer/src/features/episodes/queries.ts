// The episode queries' keys, all under `all`: every list under `lists`, every episode under
// `details`, so a change invalidates exactly the family it touches (the ledger's seq moving
// refreshes lists and details, never the search fields).
const all = ['episodes'] as const;
const lists = [...all, 'list'] as const;
const details = [...all, 'detail'] as const;

export const episodeKeys = {
  all,
  lists,
  list: (query: string) => [...lists, query] as const,
  details,
  detail: (id: string) => [...details, id] as const,
  searchFields: [...all, 'search-fields'] as const,
};
