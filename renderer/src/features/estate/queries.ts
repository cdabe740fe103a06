// The estate queries' keys. Suggestions sit outside `all`: an older service answers 404, and
// that need not be asked again every time the ledger moves.
export const estateKeys = {
  all: ['estate'] as const,
  view: ['estate', 'view'] as const,
  overrides: ['estate', 'overrides'] as const,
  suggestions: ['estate-suggestions'] as const,
  job: (id: string) => ['job', id] as const,
};
