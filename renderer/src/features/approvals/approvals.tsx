// Approvals (console design C.5): requests waiting for you first, then those waiting on
// others, then decided ones. Facets status, risk and kind with counts, a text query, all in
// the URL (`sel` pins one request on top). Each request shows its title, service, risk,
// requester, quorum state ("1 of 2 approvals" and who), expiry, channels it was sent to and
// every decision; Approve (with a confirmation naming it), Deny and Withdraw (each with a
// reason) act on it. A request you asked for says why you cannot approve it.
import { useMe } from '../people/index.js';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type Me } from '../people/index.js';
import { ApiError, roleAtLeast } from '../../shared/api.js';
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';
import { Empty, Link, Time } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import { approvalApi, type ApprovalList, type ApprovalRequest } from './api.js';
import { approvalKeys } from './queries.js';
import {
  approversOf,
  requesterOf,
  hasApproved,
  isMine,
  KINDS,
  quorumText,
  RISK_GLYPH,
  RISKS,
  STATUS_GLYPH,
  STATUSES,
  waitsFor,
} from './approval-words.js';
import { autonomyKeys } from '../autonomy/index.js';
import { explain, Refusal } from '../../shared/http.js';

const FACETS = [
  ['status', STATUSES],
  ['risk', RISKS],
  ['kind', KINDS],
] as const;
const LIMIT = 100;
/** Under this, a pending request is flagged "expiring soon". */
const SOON_MS = 15 * 60 * 1000;

function withParam(params: URLSearchParams, key: string, value: string | null): string {
  const next = new URLSearchParams(params);
  if (value === null || value === '') next.delete(key);
  else next.set(key, value);
  const text = next.toString();
  return `/approvals${text === '' ? '' : `?${text}`}`;
}

/** The API's query string from the page's: the filters only. */
function apiQuery(params: URLSearchParams): string {
  const q = new URLSearchParams();
  for (const k of ['status', 'risk', 'kind', 'q', 'query', 'since', 'until', 'sort'])
    if ((params.get(k) ?? '') !== '') q.set(k, params.get(k) ?? '');
  q.set('limit', String(LIMIT));
  return q.toString();
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

/** Time left, rounded down: "23 h 59 min", "4 min 10 s". */
function countdown(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${String(s)} s`;
  if (s < 3600) return `${String(Math.floor(s / 60))} min ${String(s % 60)} s`;
  return `${String(Math.floor(s / 3600))} h ${String(Math.floor((s % 3600) / 60))} min`;
}

type Group = 'mine' | 'others' | 'decided';

/** Waiting for me: pending, not mine, I may approve it and have not yet (`waitsFor`). */
function groupOf(r: ApprovalRequest, me: Me | undefined): Group {
  if (r.status !== 'pending') return 'decided';
  return waitsFor(r, me) ? 'mine' : 'others';
}

const GROUP_TITLE: Record<Group, string> = {
  mine: 'Waiting for you',
  others: 'Waiting on others',
  decided: 'Decided',
};

function SearchBar({ params }: { params: URLSearchParams }) {
  const fromUrl = params.get('q') ?? '';
  const [text, setText] = useState(fromUrl);
  useEffect(() => {
    setText(fromUrl);
  }, [fromUrl]);
  return (
    <form
      className="query-bar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(withParam(params, 'q', text.trim()), { replace: true });
      }}
    >
      <label className="grow">
        <span className="visually-hidden">Search approvals</span>
        <input
          name="q"
          placeholder="search title, service, requester, id"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
          }}
        />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

function Facets({
  params,
  facets,
}: {
  params: URLSearchParams;
  facets: Partial<ApprovalList['facets']>;
}) {
  return (
    <aside className="facets" aria-label="facets">
      {FACETS.map(([name, values]) => {
        const chosen = new Set((params.get(name) ?? '').split(',').filter((v) => v !== ''));
        const counts = facets[name];
        return (
          <fieldset key={name}>
            <legend>{name}</legend>
            {values.map((value) => (
              <label key={value} className="facet">
                <input
                  type="checkbox"
                  checked={chosen.has(value)}
                  onChange={() => {
                    const next = new Set(chosen);
                    if (next.has(value)) next.delete(value);
                    else next.add(value);
                    navigate(withParam(params, name, [...next].join(',')), { replace: true });
                  }}
                />
                <span className="value">{value.replace('_', ' ')}</span>
                <span className="num">
                  {counts === undefined ? '' : (counts[value] ?? 0).toLocaleString('en')}
                </span>
              </label>
            ))}
          </fieldset>
        );
      })}
    </aside>
  );
}

function StatusBadge({ r }: { r: ApprovalRequest }) {
  const tone =
    r.status === 'approved'
      ? ' ok'
      : r.status === 'denied'
        ? ' fail'
        : r.status === 'pending'
          ? ' warn'
          : '';
  return (
    <span className={`badge${tone}`}>
      {STATUS_GLYPH[r.status]} {r.status}
    </span>
  );
}

function RiskBadge({ r }: { r: ApprovalRequest }) {
  const tone = r.risk === 'high' ? ' fail' : r.risk === 'medium' ? ' warn' : '';
  return (
    <span className={`badge${tone}`} title="risk of what it would do">
      {RISK_GLYPH[r.risk]} {r.risk} risk
    </span>
  );
}

function Expiry({ r, now }: { r: ApprovalRequest; now: number }) {
  const left = Date.parse(r.expires_at) - now;
  if (r.status !== 'pending')
    return (
      <>
        closed <Time iso={r.closed_at} />
      </>
    );
  return (
    <>
      expires <Time iso={r.expires_at} /> ({left <= 0 ? 'now' : `in ${countdown(left)}`})
      {left > 0 && left < SOON_MS && <strong className="error"> ◷ expiring soon</strong>}
    </>
  );
}

function Channels({ r }: { r: ApprovalRequest }) {
  if (r.channels.length === 0)
    return <p className="muted">Channels: not sent to any channel (shown in the console only).</p>;
  return (
    <div>
      <strong>Channels sent</strong>
      <ul className="plain">
        {r.channels.map((c) => (
          <li key={`${c.channel}-${String(c.step)}-${c.at}`}>
            {c.ok ? '✓' : '✖'} {c.channel} (step {c.step}) <Time iso={c.at} />
            {c.ok ? '' : ' — failed'}
            {c.detail !== '' && <span className="muted"> — {c.detail}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Decisions({ r }: { r: ApprovalRequest }) {
  if (r.decisions.length === 0) return <p className="muted">Decisions: none yet.</p>;
  return (
    <div>
      <strong>Decisions</strong>
      <ul className="plain">
        {r.decisions.map((d) => (
          <li key={`${d.by}-${d.at}-${d.decision}`}>
            {d.decision === 'approve' ? '✓ approved' : '✖ denied'} by <strong>{d.by}</strong>{' '}
            <Time iso={d.at} /> <span className="muted">via {d.via}</span>
            {d.reason !== null && d.reason !== '' && <> — “{d.reason}”</>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Why Approve is not offered to this person, or null. */
function cannotApprove(r: ApprovalRequest, me: Me | undefined): string | null {
  if (me === undefined) return 'who you are is not known yet';
  if (isMine(r, me))
    return 'You requested this: the two-person rule needs someone else to approve it.';
  if (!roleAtLeast(me.role, r.approver_role))
    return `Approving this needs the ${r.approver_role} role; you are ${me.role}.`;
  if (hasApproved(r, me)) return 'You approved this already; each person counts once.';
  return null;
}

type Verb = 'approve' | 'deny' | 'withdraw';

function DecideForm({ r, me }: { r: ApprovalRequest; me: Me | undefined }) {
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

function RequestCard({
  r,
  me,
  now,
  selected,
}: {
  r: ApprovalRequest;
  me: Me | undefined;
  now: number;
  selected: boolean;
}) {
  const approvers = approversOf(r);
  return (
    <article
      aria-label={r.title}
      className="approval"
      style={{
        border: `1px solid ${selected ? 'var(--accent)' : 'var(--line)'}`,
        borderRadius: 8,
        padding: '8px 16px',
        marginBottom: 12,
      }}
    >
      <h3 style={{ margin: '4px 0', display: 'flex', flexWrap: 'wrap', gap: 8 }}>
        <StatusBadge r={r} /> <span>{r.title}</span>
      </h3>
      <p style={{ margin: '4px 0', display: 'flex', flexWrap: 'wrap', gap: 12 }}>
        <span>
          service <strong>{r.service ?? 'all services'}</strong>
        </span>
        <RiskBadge r={r} />
        <span className="muted">{r.kind.replace('_', ' ')}</span>
        <span>
          requested by <strong>{requesterOf(r)}</strong> <Time iso={r.requested_at} />
        </span>
        <span>
          <Expiry r={r} now={now} />
        </span>
      </p>
      <p style={{ margin: '4px 0' }} aria-label="quorum">
        <strong className="quorum">{quorumText(r)}</strong>
        {approvers.length > 0 && <> — approved by {approvers.join(', ')}</>}
        <span className="muted"> · approvers need the {r.approver_role} role</span>
      </p>
      {r.summary !== '' && <p style={{ margin: '4px 0' }}>{r.summary}</p>}
      {r.reason !== null && r.reason !== '' && r.status !== 'pending' && (
        <p style={{ margin: '4px 0' }}>
          {r.status} because: “{r.reason}”
        </p>
      )}
      {r.episode_id !== null && (
        <p style={{ margin: '4px 0' }}>
          Episode <Link to={`/episodes/${encodeURIComponent(r.episode_id)}`}>{r.episode_id}</Link>
        </p>
      )}
      <Channels r={r} />
      <Decisions r={r} />
      <details>
        <summary>What exactly is approved</summary>
        <pre style={{ whiteSpace: 'pre-wrap', margin: '4px 0' }}>
          {JSON.stringify(r.subject, null, 2)}
        </pre>
        <p className="hint">
          Bound to sha256 <code>{r.subject_sha256}</code> · id{' '}
          <Link to={`/approvals?sel=${encodeURIComponent(r.request_id)}`}>
            <code>{r.request_id}</code>
          </Link>
        </p>
      </details>
      {r.status === 'pending' && <DecideForm r={r} me={me} />}
    </article>
  );
}

export function ApprovalsPage() {
  const { params } = useLocation();
  const me = useMe();
  const now = useNow(30_000);
  const query = apiQuery(params);
  const list = useQuery({
    queryKey: approvalKeys.list(query),
    queryFn: () => approvalApi.list(query),
    placeholderData: keepPreviousData,
  });
  const sel = params.get('sel');
  const selected = useQuery({
    queryKey: approvalKeys.detail(sel ?? ''),
    queryFn: () => approvalApi.get(sel ?? ''),
    enabled: sel !== null && sel !== '',
  });
  const requests = (list.data?.requests ?? []).filter((r) => r.request_id !== sel);
  const groups: Record<Group, ApprovalRequest[]> = { mine: [], others: [], decided: [] };
  for (const r of requests) groups[groupOf(r, me.data)].push(r);
  groups.decided.sort((a, b) =>
    (b.closed_at ?? b.requested_at).localeCompare(a.closed_at ?? a.requested_at),
  );
  const filtered = ['status', 'risk', 'kind', 'q'].some((k) => (params.get(k) ?? '') !== '');
  return (
    <main className="page">
      <h1>
        Approvals{' '}
        {list.data && (
          <span className="count">
            {list.data.total.toLocaleString('en')} request{list.data.total === 1 ? '' : 's'}
            {groups.mine.length > 0 && ` · ${String(groups.mine.length)} waiting for you`}
          </span>
        )}
      </h1>
      <div className="filters">
        <SearchBar params={params} />
        {filtered && (
          <button
            type="button"
            className="quiet"
            onClick={() => {
              navigate('/approvals', { replace: true });
            }}
          >
            Clear filters
          </button>
        )}
      </div>
      <div className="with-rail">
        <Facets params={params} facets={list.data?.facets ?? {}} />
        <section aria-label="requests">
          {list.isError && (
            <p className="error" role="alert">
              ⚠ Could not read the approvals: {explain(list.error)}
              {list.data && ' — showing the last good list.'}{' '}
              <button type="button" onClick={() => void list.refetch()}>
                Retry
              </button>
            </p>
          )}
          {sel !== null && sel !== '' && (
            <>
              <h2>
                Selected{' '}
                <Link className="count" to={withParam(params, 'sel', null)}>
                  (unpin)
                </Link>
              </h2>
              <Refusal error={selected.error} />
              {selected.data && <RequestCard r={selected.data} me={me.data} now={now} selected />}
            </>
          )}
          {list.isPending && <p className="muted">Loading…</p>}
          {list.data && requests.length === 0 && (sel === null || sel === '') && (
            <Empty>
              {filtered
                ? 'No request matches these filters.'
                : 'No approval requests yet: they appear when an action, a raise of autonomy or fix mode draft needs people.'}
            </Empty>
          )}
          {/* One list of siblings keyed by request: a request that moves from one group to
              another (approved by someone else, expired) keeps its typed reason. */}
          <div>
            {(['mine', 'others', 'decided'] as const).flatMap((g) =>
              groups[g].length === 0
                ? []
                : [
                    <h2 key={`group-${g}`}>
                      {GROUP_TITLE[g]} <span className="count">{groups[g].length}</span>
                    </h2>,
                    ...groups[g].map((r) => (
                      <RequestCard
                        key={r.request_id}
                        r={r}
                        me={me.data}
                        now={now}
                        selected={false}
                      />
                    )),
                  ],
            )}
          </div>
          {list.data !== undefined && list.data.total > list.data.requests.length && (
            <p className="muted">
              Showing {list.data.requests.length} of {list.data.total.toLocaleString('en')}: narrow
              the filters to see the rest.
            </p>
          )}
        </section>
      </div>
    </main>
  );
}
