// The Learning page's query keys.
export const learningKeys = {
  all: ['learning'] as const,
  summary: ['learning', 'summary'] as const,
  patterns: ['learning', 'patterns'] as const,
};
