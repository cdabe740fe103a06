// The shapes of acting: what the executor is given (a plan: one fix of a pack, for one
// episode's service, through one connector, with the values its templates name) and what it
// answers. The shared types of packs, findings and policy come from their domains.
import type { ChangeWindowHit, FixPermission } from '../policy/index.js';
import type { Finding, PackCall, PackFix, Risk } from '../packs/index.js';
import type { EventAppender } from '../ledger/index.js';
import type { ActEvents } from './act.events.js';

export type { ChangeWindowHit, Finding, FixPermission, PackCall, PackFix, Risk };

/** A template value: what a `{name}` placeholder of the fix's calls is replaced with. */
export type TemplateValue = string | number | boolean;

/** One fix to dry-run, shadow or run. */
export interface ActionPlan {
  readonly episode_id: string;
  readonly service: string;
  /** the pack the fix comes from */
  readonly pack: string;
  readonly fix: PackFix;
  /** the connector's name (of the fix's kind), e.g. `ssh-app` */
  readonly connector: string;
  /**
   * The values the fix's `{name}` placeholders take: service, host, alertname,
   * label.<name>, and the values read so far (`<check id>.<value name>`).
   */
  readonly vars: Readonly<Record<string, TemplateValue>>;
  /** the approval request this run was approved by, when there is one */
  readonly request_id?: string | null;
}

/** The fix as the ledger names it in every action event (as decision.made does). */
export interface FixRef {
  readonly pack: string;
  readonly id: string;
  readonly title: string;
  readonly risk: Risk;
  readonly kind: 'fix' | 'restore';
}

/** A connector call with its templates filled in. */
export interface FilledCall {
  readonly op: string;
  readonly args: Readonly<Record<string, TemplateValue>>;
}

/** What the re-run checks are read for: the episode's service with the plan's values. */
export interface RecheckContext {
  readonly episode_id: string;
  readonly service: string;
  readonly pack: string;
  readonly vars: Readonly<Record<string, TemplateValue>>;
}

/** The policy's say at the moment of running: a change window, and the fix's permission. */
export interface PolicyNow {
  readonly changeWindow: ChangeWindowHit | null;
  readonly permission: FixPermission;
}

export interface DryRunResult {
  readonly ok: boolean;
  /** the gate's answer (`would restart app: allowed`), or why it failed */
  readonly detail: string;
  /** the call as sent (`dry_run {"action":"restart","arg":"app"}`), or null when none */
  readonly call: string | null;
}

/** How an execute ended; the names afterAction (server/investigate/decide.ts) takes. */
export type ExecuteResult =
  'verified' | 'taken_back' | 'not_verified' | 'refused_halt' | 'refused_policy' | 'refused_change';

export interface ExecuteOutcome {
  readonly result: ExecuteResult;
  /** one line a person reads */
  readonly detail: string;
  /** the ids of the findings of the last verification reading */
  readonly findings: readonly string[];
}

export interface ActDeps {
  /** one connector operation (the connector runtime's call, with its limiter and timeout) */
  call(connector: string, op: string, args: Readonly<Record<string, unknown>>): Promise<unknown>;
  readonly ledger: EventAppender<ActEvents>;
  readonly writer: { transact<T>(fn: () => T): Promise<T> };
  readonly clock: { now(): number };
  /** whether actions are halted now (POST /v1/halt) */
  halted(): boolean;
  /** the policy in force now for this service and fix */
  policyNow(service: string, fix: { readonly id: string; readonly risk: Risk }): PolicyNow;
  /**
   * The autonomy in force now (checked where action.started is recorded): an approved fix
   * needs L1 or L2, one run without asking L2, a restore fix draft mode. Absent: not checked.
   */
  readonly autonomy?: {
    levelOf(service: string): 'off' | 'shadow' | 'L1' | 'L2';
    fixMode(): 'advise' | 'draft';
  };
  /** Why the approval a plan runs under no longer stands (an approver disabled…), or null. */
  readonly approvalStands?: (requestId: string) => string | null;
  /** re-run these checks (ids of pack checks) for the episode; the engine's findings */
  recheck(checkIds: readonly string[], ctx: RecheckContext): Promise<readonly Finding[]>;
  /** whether every alert of the episode has ended */
  alertEnded(episodeId: string): boolean | Promise<boolean>;
  /** waits between verification readings; setTimeout by default */
  readonly sleep?: (ms: number) => Promise<void>;
  /** milliseconds between verification readings; 3,000 by default */
  readonly verifyEveryMs?: number;
  /** the ledger actor of action events; `system` by default */
  readonly actor?: string;
}
