// The words of autonomy levels and fix modes, as the Autonomy page names them.
import type { AutonomyLevel, FixMode } from './api.js';

export const LEVELS: readonly AutonomyLevel[] = ['off', 'shadow', 'L1', 'L2'];

export const LEVEL_MEANING: Record<AutonomyLevel, string> = {
  off: 'Off — takes the alert in, investigates nothing',
  shadow: 'Shadow — diagnoses and records what it would do; never acts',
  L1: 'L1 — diagnoses, then asks before every action',
  L2: 'L2 — acts without asking on fixes the policy lists as safe for the service; asks for the rest',
};

export const FIX_MODES: readonly FixMode[] = ['advise', 'draft'];

export const FIX_MODE_MEANING: Record<FixMode, string> = {
  advise: 'Advise — restore fixes (reverting a deploy) are named as advice and handed over',
  draft: 'Draft — restore fixes are drafted as approval requests needing two approvers',
};
