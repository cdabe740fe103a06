// Doctor checks of the approvals: Approvals / pending (warn when anything waits over an
// hour) and Approvals / lab auto-approver (fails while SVC_LAB_APPROVER is on).
import type { CheckResult, DoctorCheck } from '../doctor/index.js';
import type { Clock } from '../shared/clock.js';
import type { ApprovalRequest } from './types.js';

/** Pending longer than this is a warning (specification, Limits). */
export const PENDING_WARN_S = 3600;

const ago = (s: number): string =>
  s >= 7200 ? `${String(Math.floor(s / 3600))} h` : `${String(Math.floor(s / 60))} min`;

export function pendingCheck(deps: {
  readonly pending: () => readonly ApprovalRequest[];
  readonly clock: Clock;
}): DoctorCheck {
  return {
    area: 'Approvals',
    name: 'pending',
    run(): CheckResult {
      const all = deps.pending();
      if (all.length === 0) return { status: 'ok', detail: 'nothing pending', hint: '' };
      const now = deps.clock.now();
      const old = all.filter((r) => now - Date.parse(r.requested_at) > PENDING_WARN_S * 1000);
      if (old.length === 0) {
        return {
          status: 'ok',
          detail: `${String(all.length)} pending, none over one hour`,
          hint: '',
        };
      }
      const oldest = old[0];
      const age = oldest === undefined ? 0 : (now - Date.parse(oldest.requested_at)) / 1000;
      return {
        status: 'warn',
        detail: `${String(old.length)} of ${String(all.length)} pending over one hour; the oldest, ${oldest?.request_id ?? ''} (${oldest?.title ?? ''}), waits ${ago(age)}`,
        hint: 'decide or withdraw them under Approvals; check that the escalation channels reach people',
      };
    },
  };
}

export function labApproverCheck(deps: { readonly enabled: boolean }): DoctorCheck {
  return {
    area: 'Approvals',
    name: 'lab auto-approver',
    run(): CheckResult {
      return deps.enabled
        ? {
            status: 'fail',
            detail: 'on: every action request is approved by lab-approver a second after it opens',
            hint: 'unset SVC_LAB_APPROVER (or the installer option --lab-approver) outside the lab, and restart',
          }
        : { status: 'ok', detail: 'off', hint: '' };
    },
  };
}
