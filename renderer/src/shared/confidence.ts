// A hypothesis's confidence and an action's state as the console shows them everywhere (the
// episode's diagnosis, Live's rows): a glyph and the word, colour only as a second cue
// (console.md D.1). The words are the server's.

export const CONFIDENCES = ['proven', 'linked', 'suspected', 'disputed', 'unproven', 'cleared'];
export type Confidence = 'proven' | 'linked' | 'suspected' | 'disputed' | 'unproven' | 'cleared';

export const CONFIDENCE: Record<Confidence, { glyph: string; color: string; meaning: string }> = {
  proven: { glyph: '●', color: 'var(--accent)', meaning: 'a proving finding and none refuting' },
  linked: {
    glyph: '◕',
    color: 'var(--accent)',
    meaning: 'proven on a dependency, and these alerts match what it causes downstream',
  },
  suspected: { glyph: '◑', color: 'var(--accent)', meaning: 'supported, nothing proving yet' },
  disputed: { glyph: '◇!', color: '#a34e83', meaning: 'findings for and against' },
  unproven: { glyph: '○', color: 'var(--muted)', meaning: 'nothing read for it yet' },
  cleared: { glyph: '✕', color: 'var(--muted)', meaning: 'a refuting finding and none supporting' },
};

/** A confidence from the wire, or null for '' (no hypothesis yet) and words it does not know. */
export function confidenceOf(value: string): Confidence | null {
  return CONFIDENCES.includes(value) ? (value as Confidence) : null;
}

export type ActionStatus =
  | 'dry_run'
  | 'dry_run_failed'
  | 'requested'
  | 'refused'
  | 'running'
  | 'verified'
  | 'taken_back'
  | 'not_verified'
  | 'shadow';

export const ACTION_STATUS: Record<ActionStatus, string> = {
  dry_run: '◌ dry run done',
  dry_run_failed: '✖ dry run failed',
  requested: '◷ waiting for approval',
  refused: '✖ refused',
  running: '◌ running',
  verified: '✓ verified',
  taken_back: '↺ taken back',
  not_verified: '▲ not verified',
  shadow: '– shadow: recorded, nothing ran',
};

/** The states in which an action failed or was undone: a person should look. */
export const FAILED_ACTIONS: readonly string[] = [
  'taken_back',
  'not_verified',
  'dry_run_failed',
  'refused',
];
