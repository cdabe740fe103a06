// What Live sorts a running episode by beyond the specification's fields (docs/decisions.md):
// how sure its leading hypothesis is, and the state of its latest action. Read from the
// investigation's view, which the ledger's events build, so the live ETag holds.

/** From surest to ruled out; the leading hypothesis is the first of these any one holds. */
const CONFIDENCE_ORDER = ['proven', 'linked', 'suspected', 'disputed', 'unproven'] as const;

const field = (doc: unknown, name: string): string => {
  if (typeof doc !== 'object' || doc === null) return '';
  const value = (doc as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
};

/** The leading hypothesis's confidence; '' when none is held (or every one is cleared). */
export function leadingConfidence(hypotheses: readonly unknown[]): string {
  const held = new Set(hypotheses.map((h) => field(h, 'confidence')));
  return CONFIDENCE_ORDER.find((c) => held.has(c)) ?? '';
}

/**
 * The latest action's state (a fix re-run after a take-back is a new entry at the end, so a
 * failure that a later action mended no longer counts); '' when none was proposed.
 */
export function latestAction(actions: readonly unknown[]): string {
  return field(actions.at(-1), 'status');
}
