// The decision form on a pending request: Approve (with a confirmation naming it), Deny and
// Withdraw (each with a reason, required). Approve is offered only to someone who may approve
// it, and says why not otherwise (the requester, a lower role, an approval already given).
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type Me } from '../people/index.js';
import { ApiError, roleAtLeast } from '../../shared/api.js';
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';
import { Refusal } from '../../shared/http.js';
import { autonomyKeys } from '../autonomy/index.js';
import { approvalApi, type ApprovalRequest } from './api.js';
import { approvalKeys } from './queries.js';
import { hasApproved, isMine, quorumText } from './approval-words.js';

/** Why Approve is not offered to this person, or null. */
export function cannotApprove(r: ApprovalRequest, me: Me | undefined): string | null {
  if (me === undefined) return 'who you are is not known yet';
  if (isMine(r, me))
    return 'You requested this: the two-person rule needs someone else to approve it.';
  if (!roleAtLeast(me.role, r.approver_role))
    return `Approving this needs the ${r.approver_role} role; you are ${me.role}.`;
  if (hasApproved(r, me)) return 'You approved this already; each person counts once.';
  return null;
}

type Verb = 'approve' | 'deny' | 'withdraw';

export function DecideForm({ r, me }: { r: ApprovalRequest; me: Me | undefined }) {
  const qc = useQueryClient();
  const { idOf, FieldError, invalidIf } = fieldProblems(`approval-${r.request_id}`);
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const refusal = cannotApprove(r, me);
  const responder = roleAtLeast(me?.role, 'responder');
  const mine = isMine(r, me);

  const act = (verb: Verb) => {
    setError(null);
    setProblem(null);
    setDone(null);
    if ((verb === 'deny' || verb === 'withdraw') && reason.trim() === '') {
      setProblem({
        field: 'reason',
        message: `Say why you ${verb === 'deny' ? 'deny' : 'withdraw'} it: the reason is required.`,
      });
      return;
    }
    setBusy(true);
    const call =
      verb === 'approve'
        ? approvalApi.approve(r.request_id, reason)
        : verb === 'deny'
          ? approvalApi.deny(r.request_id, reason)
          : approvalApi.withdraw(r.request_id, reason);
    call
      .then((after) => {
        setDone(
          verb === 'approve'
            ? `✓ Approved: ${quorumText(after)}${after.status === 'approved' ? ' — quorum reached' : ''}`
            : verb === 'deny'
              ? '✖ Denied'
              : '↺ Withdrawn',
        );
        setReason('');
        setConfirming(false);
      })
      .catch((err: unknown) => {
        setConfirming(false);
        if (err instanceof ApiError && err.status === 400 && err.field !== undefined)
          setProblem({ field: err.field, message: err.message });
        else setError(err);
      })
      .finally(() => {
        setBusy(false);
        // Whatever happened, the request may have moved (decided by another, expired).
        void qc.invalidateQueries({ queryKey: approvalKeys.all });
        void qc.invalidateQueries({ queryKey: autonomyKeys.all });
      });
  };

  const conflict =
    error instanceof ApiError && error.status === 409
      ? error.code === 'own_request'
        ? `You requested this: ${error.message}`
        : `${error.message} (${error.code.replace('_', ' ')})`
      : null;

  return (
    <form
      className="settings-form"
      aria-label={`Decide on ${r.title}`}
      style={{ marginTop: 8, gap: 8 }}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
      }}
    >
      <label htmlFor={idOf('reason')}>Reason (required to deny or withdraw)</label>
      <textarea
        id={idOf('reason')}
        name="reason"
        rows={2}
        maxLength={1000}
        value={reason}
        disabled={!responder}
        {...invalidIf('reason', problem)}
        onChange={(e) => {
          setReason(e.target.value);
        }}
      />
      <FieldError field="reason" problem={problem} />
      {refusal !== null && (
        <p className="hint" role="note">
          {refusal}
        </p>
      )}
      <div className="actions" style={{ display: 'flex', flexWrap: 'wrap', gap: 8 }}>
        {confirming ? (
          <span role="group" aria-label="Confirm approval">
            Approve “{r.title}”?{' '}
            <button
              type="button"
              className="primary"
              disabled={busy}
              onClick={() => {
                act('approve');
              }}
            >
              Confirm approval
            </button>{' '}
            <button
              type="button"
              className="quiet"
              onClick={() => {
                setConfirming(false);
              }}
            >
              Cancel
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={busy || refusal !== null}
            title={refusal ?? `Approve: ${r.title}`}
            onClick={() => {
              setConfirming(true);
            }}
          >
            Approve
          </button>
        )}
        <button
          type="button"
          className="danger"
          disabled={busy || !responder || mine}
          title={
            mine
              ? 'You requested this: withdraw it instead'
              : responder
                ? 'Deny (a reason is required)'
                : 'Denying needs the responder role'
          }
          onClick={() => {
            act('deny');
          }}
        >
          Deny
        </button>
        <button
          type="button"
          disabled={busy || !responder}
          title={
            responder ? 'Withdraw the request (a reason is required)' : 'Needs the responder role'
          }
          onClick={() => {
            act('withdraw');
          }}
        >
          Withdraw
        </button>
      </div>
      {done !== null && (
        <p className="ok" role="status">
          {done}
        </p>
      )}
      {conflict !== null ? (
        <p className="error" role="alert">
          ⚠ {conflict}
        </p>
      ) : (
        <Refusal error={error} />
      )}
    </form>
  );
}
