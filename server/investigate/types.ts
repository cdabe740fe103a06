// The shapes of one investigation: what the engine reads (findings, whose shape packs owns
// so that act can verify without importing the investigation), what it concludes
// (hypotheses), and what the decision table is given and answers. Shared by the engine
// (diagnose.ts), the decision table (decide.ts) and the orchestrator.
import type { Risk } from '../packs/index.js';

export type { Finding } from '../packs/index.js';

export type Confidence = 'proven' | 'linked' | 'suspected' | 'disputed' | 'unproven' | 'cleared';
export type AutonomyLevel = 'off' | 'shadow' | 'L1' | 'L2';
export type FixMode = 'advise' | 'draft';

export interface Hypothesis {
  readonly cause: string;
  readonly title: string;
  /** the service the cause is on (a dependency's for `linked`) */
  readonly service: string;
  readonly confidence: Confidence;
  /** the pack it comes from */
  readonly pack: string;
  readonly proving: readonly string[];
  readonly supporting: readonly string[];
  readonly refuting: readonly string[];
  /** fix ids of the cause, in order of preference */
  readonly fixes: readonly string[];
  /** for `linked`: the dependency's episode, when one is open */
  readonly linked_episode?: string | null;
  /**
   * Why a cause with a proving finding is held at `suspected`: a check that could have ruled
   * it out could not be read, or a finding its mechanism requires is missing. Absent: not held.
   */
  readonly held?: readonly string[];
  /** the closed episode of the same cause and service this repeats (last 7 days) */
  readonly recurrence_of?: string | null;
  /** the promoted learned pattern this proven cause repeats (learning); absent: none */
  readonly pattern?: string;
}

/** A fix as the decision table sees it. */
export interface FixChoice {
  readonly pack: string;
  readonly id: string;
  readonly title: string;
  readonly risk: Risk;
  readonly kind: 'fix' | 'restore';
  /** the policy's actions section allows this fix for this service at this risk */
  readonly allowed: boolean;
  /** the policy lists it as safe without asking (L2) */
  readonly safe: boolean;
  /** the templates filled in: runnable now */
  readonly runnable: boolean;
  /**
   * Why the fix would not change what explains the symptom (a finding its `fits` names is
   * absent); null when it fits. An unfit fix is never offered: a person is asked.
   */
  readonly unfit?: string | null;
}

export interface DecideInput {
  /** every hypothesis, best first */
  readonly hypotheses: readonly Hypothesis[];
  /** the episode's alerts all ended before the decision */
  readonly alertEnded: boolean;
  readonly autonomy: AutonomyLevel;
  readonly fixMode: FixMode;
  readonly halted: boolean;
  /** the first fix of the leading proven cause, or null */
  readonly fix: FixChoice | null;
  /** a policy change window covers this service now */
  readonly changeWindow: { readonly name: string; readonly until: string } | null;
  /** someone can be asked: a signed-in approver exists or an escalation channel works */
  readonly approvalRoute: boolean;
  /**
   * What a person can do so that the checks can read: "run discovery" when the estate does
   * not know the service yet. Added to an abstention's why.
   */
  readonly hint?: string | null;
}

export type Decision =
  | 'act'
  | 'shadow'
  | 'restore'
  | 'mitigated_first'
  | 'ask_human'
  | 'vetoed'
  | 'same_cause'
  | 'downstream'
  | 'related'
  | 'settled'
  | 'recurrence'
  | 'abstain'
  | 'cleared'
  | 'denied'
  | 'dry_run_failed'
  | 'no_approval_route'
  | 'change_blocked'
  | 'blocked';

export interface DecideOutput {
  readonly decision: Decision;
  /** one line a person reads: why this decision */
  readonly why: string;
  /**
   * What happens next: `none` (hand over or close), `act` (dry run, then run at once: L2),
   * `ask` (dry run, then an approval request: L1), `record` (shadow: write the would-be action).
   */
  readonly next: 'none' | 'act' | 'ask' | 'record';
}
