// The lab auto-approver (SVC_LAB_APPROVER=1): every pending `action` request is approved
// about a second after it opens, by `lab-approver` (via lab-approver), so that the lab can
// show a whole incident without a person. Never autonomy or fix mode requests: those stay
// with people. The doctor fails while it is on.
import type { ApprovalsService } from './approvals.service.js';
import type { ApprovalRequest } from './types.js';

export const LAB_APPROVER = 'lab-approver';
export const LAB_APPROVER_DELAY_MS = 1000;

/** Runs `fn` once after `ms`; returns a cancel function. */
export type After = (ms: number, fn: () => void) => () => void;

export const realAfter: After = (ms, fn) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => {
    clearTimeout(t);
  };
};

export interface LabApproverDeps {
  readonly approvals: Pick<ApprovalsService, 'approve' | 'pending' | 'onOpened'>;
  /** config.labApprover */
  readonly enabled: boolean;
  readonly delayMs?: number;
  readonly after?: After;
  readonly log?: { warn(obj: object, msg: string): void };
}

export function createLabApprover(deps: LabApproverDeps) {
  const after = deps.after ?? realAfter;
  const delay = deps.delayMs ?? LAB_APPROVER_DELAY_MS;
  const timers = new Map<string, () => void>();
  let started = false;
  let subscribed = false;

  function schedule(r: ApprovalRequest): void {
    if (!started || r.kind !== 'action' || r.status !== 'pending') return;
    if (timers.has(r.request_id)) return;
    const cancel = after(delay, () => {
      timers.delete(r.request_id);
      deps.approvals
        .approve(
          r.request_id,
          { actor: { name: LAB_APPROVER }, role: 'responder', via: LAB_APPROVER },
          'approved by the lab auto-approver (SVC_LAB_APPROVER=1)',
        )
        .catch((err: unknown) => {
          // Decided, withdrawn or expired meanwhile, or needs an admin: nothing to do.
          deps.log?.warn({ err, request_id: r.request_id }, 'the lab approver did not approve');
        });
    });
    timers.set(r.request_id, cancel);
  }

  return {
    enabled: deps.enabled,
    /** When enabled: approve every pending action request now open, and each that opens. */
    start(): void {
      if (!deps.enabled || started) return;
      started = true;
      if (!subscribed) {
        subscribed = true;
        deps.approvals.onOpened(schedule);
      }
      for (const r of deps.approvals.pending()) schedule(r);
    },
    stop(): void {
      started = false;
      for (const cancel of timers.values()) cancel();
      timers.clear();
    },
  };
}
export type LabApprover = ReturnType<typeof createLabApprover>;
