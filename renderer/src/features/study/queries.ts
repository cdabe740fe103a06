// The Study page's query key.
export const studyKeys = { all: ['study'] as const };
