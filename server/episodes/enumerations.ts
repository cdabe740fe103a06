// The enumerations of the specification that episodes carry, and our list of episode kinds.
export const CONFIDENCES = [
  'proven',
  'linked',
  'suspected',
  'disputed',
  'unproven',
  'cleared',
] as const;
export const DECISIONS = [
  'act',
  'shadow',
  'restore',
  'mitigated_first',
  'ask_human',
  'vetoed',
  'same_cause',
  'downstream',
  'related',
  'settled',
  'recurrence',
  'abstain',
  'cleared',
  'denied',
  'dry_run_failed',
  'no_approval_route',
  'change_blocked',
  'blocked',
] as const;
export const OUTCOMES = [
  'mitigated',
  'unresolved',
  'action_failed',
  'rejected',
  'escalated',
  'explained',
  'cleared',
  'shadow',
  'abandoned',
] as const;
export const RESULTS = [
  'resolved',
  'restored',
  'handed_over',
  'linked',
  'cleared',
  'shadow',
  'other',
] as const;
export const ACTIONS = ['verified', 'taken_back', 'not_verified', ''] as const;
/**
 * symptom: an alert whose cause is not (yet) shown on this service; failure: a cause proven
 * on this service; downstream: the effect of a failure elsewhere; change: opened by a change
 * (a deploy or configuration event); security: opened by a security source (SIEM, IDS).
 */
export const KINDS = ['symptom', 'failure', 'downstream', 'change', 'security'] as const;

/** The team's verdict on an episode; `other` needs a detail. */
export const TEAM_VERDICTS = ['same', 'advice', 'other', 'none'] as const;
