// The episode queries' keys: every list under `lists`, every episode under `details`, so a
// change invalidates exactly the family it touches.
export const episodeKeys = {
  lists: ['episodes'] as const,
  list: (query: string) => ['episodes', query] as const,
  details: ['episode'] as const,
  detail: (id: string) => ['episode', id] as const,
  searchFields: ['search-fields'] as const,
};
