// The digest queries' keys: one answer per window of days.
export const digestKeys = {
  all: ['digest'] as const,
  days: (days: number) => ['digest', days] as const,
};
