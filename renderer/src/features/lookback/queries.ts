// The Lookback page's query key.
export const lookbackKeys = { all: ['lookback'] as const };
