// Small readers of untyped values (parsed JSON, caught errors) used across domains.

/** A plain JSON object: not null, not an array. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a caught value says, whether an Error or anything else thrown. */
export const messageOf = (err: unknown): string =>
  err instanceof Error ? err.message : String(err);
