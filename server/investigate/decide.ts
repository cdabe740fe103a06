// The decision of one episode: a pure function of what the investigation found (the
// hypotheses and their confidence), the service's autonomy, the fix mode, the halt, the
// policy's say on the fix and the change windows, and whether anyone can be asked. Written as
// a table: the first row whose condition holds gives the decision, the line a person reads,
// and what happens next. Code decides, never a model; without a proven or linked cause the
// answer is `abstain` (or `cleared`), never a guess. Every row has its own test
// (decide.test.ts), and afterAction says how an episode closes once its action is over.
import type { ACTIONS, OUTCOMES, RESULTS } from '../episodes/index.js';
import type { DecideInput, DecideOutput, Decision, FixChoice, Hypothesis } from './types.js';
import { decisive } from './confidence.js';

/** One row of the table: when it holds, the decision, why (one line) and what comes next. */
export interface DecisionRow {
  /** a short name, for tests and for reading the table */
  readonly name: string;
  readonly when: (input: DecideInput) => boolean;
  readonly decision: (input: DecideInput) => Decision;
  readonly why: (input: DecideInput) => string;
  readonly next: (input: DecideInput) => DecideOutput['next'];
}

/** The first proven or linked hypothesis: the engine gives them best first. */
export function leadingHypothesis(input: DecideInput): Hypothesis | null {
  return input.hypotheses.find(decisive) ?? null;
}

const leading = (i: DecideInput): Hypothesis | null => leadingHypothesis(i);
const proven = (i: DecideInput): Hypothesis | null =>
  i.hypotheses.find((h) => h.confidence === 'proven') ?? null;
const titleOf = (i: DecideInput): string => proven(i)?.title ?? 'the cause';
/** The fix; only read by rows after the "no fix" row, where it is present. */
const fixOf = (i: DecideInput): FixChoice => {
  if (i.fix === null) throw new Error('decide: a row after "no fix" read a missing fix');
  return i.fix;
};
const fixName = (i: DecideInput): string => {
  const f = fixOf(i);
  return `${f.title} (${f.pack}/${f.id}, ${f.risk} risk)`;
};
const actOrRestore = (i: DecideInput): Decision =>
  fixOf(i).kind === 'restore' ? 'restore' : 'act';
const fixed =
  <T>(value: T) =>
  (): T =>
    value;

/**
 * The table, evaluated in order. The first rows settle what the episode is (ended by itself,
 * the effect of a cause elsewhere, nothing found); the rest say whether and how its fix runs.
 */
export const DECISION_TABLE: readonly DecisionRow[] = [
  {
    name: 'settled',
    when: (i) => i.alertEnded && leading(i) === null,
    decision: fixed('settled'),
    why: fixed('the alert ended by itself before a cause was proven'),
    next: fixed('none'),
  },
  {
    name: 'downstream',
    when: (i) => leading(i)?.confidence === 'linked',
    decision: fixed('downstream'),
    why: (i) => {
      const h = leading(i);
      return `the effect of ${h?.title ?? 'a cause'} on ${h?.service ?? 'a dependency'}, which this service depends on`;
    },
    next: fixed('none'),
  },
  {
    name: 'cleared',
    // Not where the estate does not know the service (a hint): its own checks could not read.
    when: (i) =>
      leading(i) === null &&
      !i.hint &&
      i.hypotheses.some((h) => h.confidence === 'cleared') &&
      !i.hypotheses.some((h) => h.confidence === 'suspected' || h.confidence === 'disputed'),
    decision: fixed('cleared'),
    why: (i) =>
      `every cause the checks could test was ruled out (${i.hypotheses
        .filter((h) => h.confidence === 'cleared')
        .map((h) => h.cause)
        .join(', ')})`,
    next: fixed('none'),
  },
  {
    name: 'abstain',
    when: (i) => leading(i) === null,
    decision: fixed('abstain'),
    why: (i) => {
      const open = i.hypotheses.filter(
        (h) => h.confidence === 'suspected' || h.confidence === 'disputed',
      );
      const why =
        open.length > 0
          ? `no cause is proven (${open.map((h) => `${h.cause} ${h.confidence}`).join(', ')}); too little evidence to act`
          : 'no cause is proven; too little evidence to act';
      return i.hint ? `${why}; ${i.hint}` : why;
    },
    next: fixed('none'),
  },
  {
    name: 'no fix',
    when: (i) => i.fix === null,
    decision: fixed('ask_human'),
    why: (i) => `${titleOf(i)} is proven, and no fix for it exists: a person must act`,
    next: fixed('none'),
  },
  {
    name: 'fix does not fit',
    when: (i) => typeof fixOf(i).unfit === 'string',
    decision: fixed('ask_human'),
    why: (i) =>
      `${titleOf(i)} is proven, but ${fixName(i)} would not help: ${fixOf(i).unfit ?? ''}; a person acts`,
    next: fixed('none'),
  },
  {
    name: 'autonomy off',
    when: (i) => i.autonomy === 'off',
    decision: fixed('ask_human'),
    why: (i) => `${titleOf(i)} is proven; autonomy is off for this service, so a person acts`,
    next: fixed('none'),
  },
  {
    name: 'halted',
    when: (i) => i.halted,
    decision: fixed('blocked'),
    why: (i) => `actions are halted: ${fixName(i)} does not run`,
    next: fixed('none'),
  },
  {
    name: 'not allowed',
    when: (i) => !fixOf(i).allowed,
    decision: fixed('blocked'),
    why: (i) => `the policy does not allow ${fixName(i)} on this service`,
    next: fixed('none'),
  },
  {
    name: 'not runnable',
    when: (i) => !fixOf(i).runnable,
    decision: fixed('ask_human'),
    why: (i) =>
      `${fixName(i)} cannot be filled in from what was read (a value it names is missing): a person acts`,
    next: fixed('none'),
  },
  {
    name: 'change window',
    when: (i) => i.changeWindow !== null,
    decision: fixed('change_blocked'),
    why: (i) =>
      `change window ${i.changeWindow?.name ?? ''} forbids actions on this service until ${i.changeWindow?.until ?? ''}`,
    next: fixed('none'),
  },
  {
    name: 'shadow',
    when: (i) => i.autonomy === 'shadow',
    decision: fixed('shadow'),
    why: (i) => `shadow autonomy: ${fixName(i)} is recorded as what would run, nothing runs`,
    next: fixed('record'),
  },
  {
    name: 'restore advised',
    when: (i) => fixOf(i).kind === 'restore' && i.fixMode === 'advise',
    decision: fixed('ask_human'),
    why: (i) =>
      `${fixName(i)} rolls back a change; fix mode advise names it as advice for a person, it is not requested`,
    next: fixed('none'),
  },
  {
    name: 'L2 safe',
    // A restore is always drafted as a request (fix mode draft, two approvers): never run
    // without asking, even on L2.
    when: (i) => i.autonomy === 'L2' && fixOf(i).safe && fixOf(i).kind === 'fix',
    decision: fixed('act'),
    why: (i) => `L2 autonomy and the policy lists ${fixName(i)} as safe: it runs without asking`,
    next: fixed('act'),
  },
  {
    name: 'no approval route',
    when: (i) => !i.approvalRoute,
    decision: fixed('no_approval_route'),
    why: (i) =>
      `${fixName(i)} needs an approval, and no approver is signed in and no escalation channel works`,
    next: fixed('none'),
  },
  {
    name: 'ask',
    when: fixed(true),
    decision: actOrRestore,
    why: (i) =>
      fixOf(i).kind === 'restore'
        ? `${fixName(i)} rolls back a change: drafted as a request for two approvers`
        : `${i.autonomy === 'L2' ? 'L2 autonomy, but the policy does not list the fix as safe' : 'L1 autonomy'}: ${fixName(i)} is requested for approval`,
    next: fixed('ask'),
  },
];

/** The decision of one episode: the first row of DECISION_TABLE that holds. */
export function decide(input: DecideInput): DecideOutput {
  for (const row of DECISION_TABLE) {
    if (row.when(input))
      return { decision: row.decision(input), why: row.why(input), next: row.next(input) };
  }
  // The last row always holds; this is for the type checker.
  throw new Error('decide: no row of the decision table held');
}

/** The row that gave the decision, by name (tests, and the ledger's detail if wanted). */
export function decidingRow(input: DecideInput): string {
  return DECISION_TABLE.find((r) => r.when(input))?.name ?? '';
}

// ────────────────────────────────────────────────────────────────────────────────────────
// Closing an episode: outcome, result and action (server/episodes/enumerations.ts).
// ────────────────────────────────────────────────────────────────────────────────────────

export type Outcome = (typeof OUTCOMES)[number];
export type EpisodeResult = (typeof RESULTS)[number];
export type EpisodeAction = (typeof ACTIONS)[number];

/** How an action ended (the executor's result, or what stopped it before it ran). */
export type ActionResult =
  | 'verified'
  | 'taken_back'
  | 'not_verified'
  | 'dry_run_failed'
  | 'denied'
  | 'refused_halt'
  | 'refused_policy'
  | 'refused_change';

export interface Closing {
  readonly decision: Decision;
  readonly outcome: Outcome;
  readonly result: EpisodeResult;
  readonly action: EpisodeAction;
}

/**
 * The episode's record once its action is over. `decision` is what decide gave (act or
 * restore); a dry run that failed, a denied request and a refusal at execution time replace
 * it (dry_run_failed, denied, blocked, change_blocked). Verified: mitigated, and resolved
 * (restored for a rollback). Not verified (taken back or not): the action failed and a person
 * owns it. Everything that stopped the action before it ran hands the episode over.
 */
export function afterAction(decision: Decision, result: ActionResult): Closing {
  const restore = decision === 'restore';
  switch (result) {
    case 'verified':
      return {
        decision,
        outcome: 'mitigated',
        result: restore ? 'restored' : 'resolved',
        action: 'verified',
      };
    case 'taken_back':
      return { decision, outcome: 'action_failed', result: 'handed_over', action: 'taken_back' };
    case 'not_verified':
      return { decision, outcome: 'action_failed', result: 'handed_over', action: 'not_verified' };
    case 'dry_run_failed':
      return {
        decision: 'dry_run_failed',
        outcome: 'escalated',
        result: 'handed_over',
        action: '',
      };
    case 'denied':
      return { decision: 'denied', outcome: 'rejected', result: 'handed_over', action: '' };
    case 'refused_halt':
    case 'refused_policy':
      return { decision: 'blocked', outcome: 'escalated', result: 'handed_over', action: '' };
    case 'refused_change':
      return {
        decision: 'change_blocked',
        outcome: 'escalated',
        result: 'handed_over',
        action: '',
      };
  }
}

/**
 * The record of an episode that closes on its decision, with no action run: settled and
 * cleared close as nothing wrong; downstream is explained by its link; shadow records what
 * would have run; abstain is left unresolved; no approval route
 * leaves it unresolved (nobody could be asked); the rest hand the episode to a person.
 */
export function withoutAction(decision: Decision): Closing {
  const close = (outcome: Outcome, result: EpisodeResult): Closing => ({
    decision,
    outcome,
    result,
    action: '',
  });
  switch (decision) {
    case 'settled':
      return close('cleared', 'resolved');
    case 'cleared':
      return close('cleared', 'cleared');
    case 'downstream':
    case 'same_cause':
    case 'related':
      return close('explained', 'linked');
    case 'shadow':
      return close('shadow', 'shadow');
    case 'abstain':
      return close('unresolved', 'other');
    case 'denied':
      return close('rejected', 'handed_over');
    case 'no_approval_route':
      return close('unresolved', 'other');
    case 'ask_human':
    case 'blocked':
    case 'change_blocked':
    case 'dry_run_failed':
    case 'vetoed':
    case 'recurrence':
    case 'mitigated_first':
    case 'act':
    case 'restore':
      return close('escalated', 'handed_over');
  }
}
