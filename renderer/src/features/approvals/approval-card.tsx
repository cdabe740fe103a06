// One approval request as a card: title, status and risk badges, service, requester, expiry
// with a countdown, quorum state and who approved, channels it was sent to, every decision,
// what exactly is approved, and (while pending) the decision form.
import { type Me } from '../people/index.js';
import { Link, Time } from '../../shared/parts.js';
import { type ApprovalRequest } from './api.js';
import {
  approversOf,
  quorumText,
  requesterOf,
  RISK_GLYPH,
  STATUS_GLYPH,
} from './approval-words.js';
import { DecideForm } from './approval-decide.js';

/** Under this, a pending request is flagged "expiring soon". */
const SOON_MS = 15 * 60 * 1000;

/** Time left, rounded down: "23 h 59 min", "4 min 10 s". */
export function countdown(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${String(s)} s`;
  if (s < 3600) return `${String(Math.floor(s / 60))} min ${String(s % 60)} s`;
  return `${String(Math.floor(s / 3600))} h ${String(Math.floor((s % 3600) / 60))} min`;
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

export function RequestCard({
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
