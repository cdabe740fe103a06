// What Live sorts a running episode by beyond the specification's fields (docs/decisions.md):
// how sure its leading hypothesis is, and the state of its actions that most needs a person.
// Read from the investigation's view, which the ledger's events build, so the live ETag holds.

/** From surest to ruled out; the leading hypothesis is the first of these any one holds. */
const CONFIDENCE_ORDER = ['proven', 'linked', 'suspected', 'disputed', 'unproven'] as const;

/** Failed or taken back first: what a person must look at; then what is under way. */
const ACTION_ORDER = [
  'taken_back',
  'not_verified',
  'dry_run_failed',
  'refused',
  'running',
  'dry_run',
  'verified',
  'shadow',
] as const;

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

/** Of the episode's actions, the state that most needs a person; '' when none was proposed. */
export function actionToWatch(actions: readonly unknown[]): string {
  const states = new Set(actions.map((a) => field(a, 'status')));
  return ACTION_ORDER.find((s) => states.has(s)) ?? '';
}
