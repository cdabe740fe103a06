// The page a channel's approve or deny link opens: /approvals/link?token=… (escalation.ts
// sends `<console>/approvals/link?token=…` for requests a responder may decide). No sign-in:
// the signed, single-use token is the credential. GET /v1/approvals/link shows what the link
// would do (the request, its service and risk, approve or deny, when the link expires) and
// uses nothing, so a mail scanner that fetches the link decides nothing; the decision is made
// only by Confirm (POST /v1/approvals/link {token}). A used, expired or forged link, or a
// request no longer waiting, is said plainly. Loaded on demand, outside the sign-in gate.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError } from '../../shared/api.js';
import { BrandMark } from '../branding/index.js';
import { Time } from '../../shared/parts.js';
import { useLocation } from '../../shared/router.js';
import { approvalApi, type ApprovalRequest, type LinkPreview, type LinkUsed } from './api.js';
import { approvalKeys } from './queries.js';
import { quorumText, requesterOf, RISK_GLYPH } from './approval-words.js';
import { explain } from '../../shared/http.js';

/** The request id a token names: anyone can read a token's payload (only the mac is secret). */
function requestOf(token: string): string | null {
  try {
    const payload = token.split('.')[0] ?? '';
    const b64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const body = JSON.parse(atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, '='))) as {
      r?: unknown;
    };
    return typeof body.r === 'string' && body.r !== '' ? body.r : null;
  } catch {
    return null;
  }
}

/** A refusal of the link in words: what happened, and what to do instead. */
function refusalOf(err: unknown): { title: string; detail: string; next: string } {
  const message = explain(err);
  if (!(err instanceof ApiError))
    return {
      title: '⚠ The service could not be reached',
      detail: message,
      next: 'Try again in a moment; nothing was decided.',
    };
  if (err.status === 400)
    return {
      title: '✖ This link is not valid',
      detail: err.message,
      next: 'It was changed, cut short or made by another service, and decides nothing. Open the link from the message again, or decide in the console.',
    };
  if (err.status === 409 && err.code === 'already_used')
    return {
      title: '↺ This link was already used',
      detail: err.message,
      next: 'Each request’s links work once: the first one used decided it. Nothing more was recorded.',
    };
  if (err.status === 409 && err.code === 'expired')
    return {
      title: '◷ This link has expired',
      detail: err.message,
      next: 'It decides nothing now. If the request still waits, decide it in the console.',
    };
  if (err.status === 409 && err.code === 'not_pending')
    return {
      title: '– This request is no longer waiting',
      detail: err.message,
      next: 'It was decided, withdrawn or expired before this link was used; the link decides nothing.',
    };
  if (err.status === 404)
    return {
      title: '✖ The request of this link is not known',
      detail: err.message,
      next: 'This service has no such request; the link decides nothing.',
    };
  if (err.status === 403)
    return {
      title: '✖ A link cannot decide this request',
      detail: message,
      next: 'Sign in to the console as a person with that role and decide it there.',
    };
  return { title: '⚠ The link could not be read', detail: message, next: 'Nothing was decided.' };
}

function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => {
      setNow(Date.now());
    }, everyMs);
    return () => {
      clearInterval(t);
    };
  }, [everyMs]);
  return now;
}

function left(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${String(s)} s`;
  if (s < 3600) return `${String(Math.floor(s / 60))} min`;
  return `${String(Math.floor(s / 3600))} h ${String(Math.floor((s % 3600) / 60))} min`;
}

function RequestFacts({ r }: { r: ApprovalRequest }) {
  const tone = r.risk === 'high' ? ' fail' : r.risk === 'medium' ? ' warn' : '';
  return (
    <>
      <h2 style={{ margin: 0 }}>{r.title}</h2>
      <dl className="facts">
        <dt>Service</dt>
        <dd>
          <strong>{r.service ?? 'all services'}</strong>
        </dd>
        <dt>Risk</dt>
        <dd>
          <span className={`badge${tone}`}>
            {RISK_GLYPH[r.risk]} {r.risk} risk
          </span>
        </dd>
        <dt>Requested</dt>
        <dd>
          by {requesterOf(r)} <Time iso={r.requested_at} />
        </dd>
        <dt>Quorum</dt>
        <dd>
          <span className="quorum">{quorumText(r)}</span>
        </dd>
      </dl>
      {r.summary !== '' && <p style={{ margin: 0 }}>{r.summary}</p>}
      <details>
        <summary>What exactly is decided</summary>
        <pre style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: '4px 0' }}>
          {JSON.stringify(r.subject, null, 2)}
        </pre>
        <p className="hint">
          Bound to sha256 <code>{r.subject_sha256}</code> · request <code>{r.request_id}</code>
        </p>
      </details>
    </>
  );
}

function Done({ used }: { used: LinkUsed }) {
  const r = used.request;
  const text =
    used.decision === 'deny'
      ? '✖ Denied'
      : r.status === 'approved'
        ? `✓ Approved: ${quorumText(r)}, the request is approved`
        : `✓ Approved: ${quorumText(r)} so far, it waits for more approvers`;
  return (
    <>
      <p className="ok" role="status">
        {text}. Recorded as <strong>{used.by}</strong>; this link is used now.
      </p>
      <RequestFacts r={r} />
    </>
  );
}

function Preview({ token, preview }: { token: string; preview: LinkPreview }) {
  const now = useNow(15_000);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [used, setUsed] = useState<LinkUsed | null>(null);
  if (used !== null) return <Done used={used} />;
  const r = preview.request;
  const approve = preview.decision === 'approve';
  const verb = approve ? 'approve' : 'deny';
  const admin = r.approver_role !== 'responder';
  const refusal = error === null ? null : refusalOf(error);
  // A 4xx stays so (used, expired, forged); a network failure or a 5xx may be tried again.
  const final = error instanceof ApiError && error.status < 500;
  return (
    <>
      <p style={{ margin: 0 }}>
        This link will <strong>{verb}</strong> the request below
        {preview.channel !== null && (
          <>
            {' '}
            (sent on <strong>{preview.channel}</strong>)
          </>
        )}
        . It works once and counts as{' '}
        <code>{preview.counts_as ?? `channel:${preview.channel ?? 'link'}`}</code>, one approver,
        toward the quorum.
      </p>
      <RequestFacts r={r} />
      <p style={{ margin: 0 }}>
        The link expires <Time iso={preview.expires_at} /> (in{' '}
        {left(Date.parse(preview.expires_at) - now)}).
      </p>
      {admin && (
        <p className="hint" role="note">
          This request needs people with the {r.approver_role} role: a link cannot decide it. Sign
          in to the console and decide it there.
        </p>
      )}
      <form
        aria-label={`Confirm: ${verb}`}
        style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          approvalApi
            .redeemLink(token, reason)
            .then(setUsed)
            .catch((err: unknown) => {
              setError(err);
            })
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        <label style={{ display: 'flex', flexDirection: 'column', gap: 4 }}>
          Reason (optional, recorded with the decision)
          <textarea
            name="reason"
            rows={2}
            maxLength={1000}
            value={reason}
            disabled={admin || final}
            onChange={(e) => {
              setReason(e.target.value);
            }}
          />
        </label>
        <p style={{ margin: 0 }}>
          <button
            type="submit"
            className={approve ? 'primary' : 'danger'}
            disabled={busy || admin || final}
          >
            {approve ? '✓ Confirm: approve' : '✖ Confirm: deny'}
          </button>
        </p>
      </form>
      {refusal !== null && <Refused refusal={refusal} />}
    </>
  );
}

function Refused({ refusal }: { refusal: ReturnType<typeof refusalOf> }) {
  return (
    <div role="alert" aria-label="link refused">
      <p className="error" style={{ margin: 0 }}>
        <strong>{refusal.title}</strong>: {refusal.detail}
      </p>
      <p className="hint">{refusal.next}</p>
    </div>
  );
}

export function ApprovalLinkPage() {
  const { params } = useLocation();
  const token = params.get('token') ?? '';
  const preview = useQuery({
    queryKey: approvalKeys.link(token),
    queryFn: () => approvalApi.peekLink(token),
    enabled: token !== '',
    // Read once: the answer changes only by using the link, which this page shows itself.
    staleTime: Infinity,
    gcTime: 0,
  });
  const id = preview.data?.request.request_id ?? requestOf(token);
  return (
    <main className="sign-in">
      <section
        className="sign-in-box"
        aria-labelledby="link-title"
        style={{ width: 'min(640px, 100%)' }}
      >
        <BrandMark />
        <h1 id="link-title" style={{ margin: 0 }}>
          {preview.data === undefined
            ? 'Approval link'
            : preview.data.decision === 'approve'
              ? 'Approve this request?'
              : 'Deny this request?'}
        </h1>
        {token === '' ? (
          <Refused
            refusal={{
              title: '✖ This link has no token',
              detail: 'the address lacks its ?token= part',
              next: 'Open the link from the message again; nothing was decided.',
            }}
          />
        ) : preview.isPending ? (
          <p className="muted">Reading the link…</p>
        ) : preview.isError ? (
          <Refused refusal={refusalOf(preview.error)} />
        ) : (
          <Preview token={token} preview={preview.data} />
        )}
        <p className="hint" style={{ margin: 0 }}>
          No sign-in is needed here: the link itself is the credential.
          {id !== null && (
            <>
              {' '}
              To see the request with every decision, sign in and{' '}
              <a href={`/approvals/${encodeURIComponent(id)}`}>open it in the console</a>.
            </>
          )}
        </p>
      </section>
    </main>
  );
}
