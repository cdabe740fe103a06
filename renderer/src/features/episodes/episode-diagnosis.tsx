// An episode's diagnosis (console design C.4): hypotheses best first, each with its confidence
// as glyph and word (proven, linked, suspected, disputed, unproven, cleared) and the findings
// it rests on (what it says, connector, call, the answer's excerpt folded away), and the
// actions with their dry run, approval, verification and take-back state. Loaded on demand
// by the episode page; what changed and the decision are above it (episode-changes.tsx,
// episode-decision.tsx).
import { type Episode } from './api.js';
import { Link, Time } from '../../shared/parts.js';
import type { ChangeEntry } from './episode-changes.js';
import {
  ACTION_STATUS,
  CONFIDENCE,
  type ActionStatus,
  type Confidence,
} from '../../shared/confidence.js';

export interface Finding {
  id: string;
  check: string;
  connector: string;
  call: string;
  service: string;
  says: string;
  values: Record<string, unknown>;
  excerpt: string;
  at: string;
  readable: boolean;
}

export interface Hypothesis {
  cause: string;
  title: string;
  service: string;
  confidence: Confidence;
  pack: string;
  proving: string[];
  supporting: string[];
  refuting: string[];
  fixes: string[];
  linked_episode?: string | null;
  recurrence_of?: string | null;
  /** the promoted learned pattern it repeats (docs/learning.md) */
  pattern?: string;
  /** why a cause with a proving finding is only suspected (an unread check, a missing link) */
  held?: string[];
}

export interface DecisionDetail {
  decision: string;
  why: string;
  next: string;
}

export interface EpisodeAction {
  fix: string;
  title: string;
  risk: string;
  status: ActionStatus;
  request_id: string | null;
  verification: { ok: boolean; detail: string; findings: string[] } | null;
  events: number[];
}

/** What GET /v1/episodes/<id> adds for an investigated episode. */
export interface Diagnosis {
  changes?: ChangeEntry[];
  findings?: Finding[];
  hypotheses?: Hypothesis[];
  decision_detail?: DecisionDetail | null;
  actions?: EpisodeAction[];
}

const RANK: Confidence[] = ['proven', 'linked', 'suspected', 'disputed', 'unproven', 'cleared'];

export function ConfidenceBadge({ confidence }: { confidence: Confidence }) {
  const c = CONFIDENCE[confidence];
  return (
    <span
      className="badge confidence"
      title={`${confidence}: ${c.meaning}`}
      style={{
        color: c.color,
        borderColor: c.color,
        textDecoration: confidence === 'cleared' ? 'line-through' : undefined,
        fontWeight: confidence === 'proven' ? 700 : undefined,
      }}
    >
      {c.glyph} {confidence}
    </span>
  );
}

function FindingItem({ f, role }: { f: Finding; role?: string }) {
  return (
    <li style={{ marginBottom: 6 }}>
      {role !== undefined && <span className="muted">{role}: </span>}
      {f.readable ? '' : '⚠ could not read — '}
      <strong>{f.says}</strong>{' '}
      <span className="muted">
        ({f.service} · {f.connector} · <code>{f.call}</code> · <Time iso={f.at} />)
      </span>
      <details>
        <summary>
          Evidence <code>{f.id}</code>
        </summary>
        {Object.keys(f.values).length > 0 && (
          <p style={{ margin: '4px 0' }}>
            Values: <code>{JSON.stringify(f.values)}</code>
          </p>
        )}
        <pre style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: '4px 0' }}>
          {f.excerpt === '' ? '(empty answer)' : f.excerpt}
        </pre>
      </details>
    </li>
  );
}

function Evidence({
  ids,
  role,
  byId,
}: {
  ids: readonly string[];
  role: string;
  byId: Map<string, Finding>;
}) {
  return (
    <>
      {ids.map((id) => {
        const f = byId.get(id);
        return f === undefined ? (
          <li key={`${role}-${id}`}>
            <span className="muted">{role}: </span>
            <code>{id}</code> <span className="muted">(not in this episode's findings)</span>
          </li>
        ) : (
          <FindingItem key={`${role}-${id}`} f={f} role={role} />
        );
      })}
    </>
  );
}

function HypothesisCard({ h, byId }: { h: Hypothesis; byId: Map<string, Finding> }) {
  const evidence = h.proving.length + h.supporting.length + h.refuting.length;
  return (
    <li
      aria-label={`hypothesis ${h.title}`}
      style={{
        border: '1px solid var(--line)',
        borderRadius: 8,
        padding: '6px 12px',
        marginBottom: 8,
        opacity: h.confidence === 'cleared' ? 0.75 : 1,
      }}
    >
      <p style={{ margin: '4px 0', display: 'flex', flexWrap: 'wrap', gap: 8 }}>
        <ConfidenceBadge confidence={h.confidence} />
        <strong style={{ textDecoration: h.confidence === 'cleared' ? 'line-through' : undefined }}>
          {h.title}
        </strong>
        <span className="muted">
          on {h.service} · <code>{h.cause}</code> · pack {h.pack} · {evidence} finding
          {evidence === 1 ? '' : 's'}
        </span>
      </p>
      {(h.linked_episode ?? null) !== null && (
        <p style={{ margin: '4px 0' }}>
          Linked to episode{' '}
          <Link to={`/episodes/${encodeURIComponent(h.linked_episode ?? '')}`}>
            {h.linked_episode}
          </Link>{' '}
          on {h.service}
        </p>
      )}
      {(h.recurrence_of ?? null) !== null && (
        <p style={{ margin: '4px 0' }}>
          ↻ Repeats episode{' '}
          <Link to={`/episodes/${encodeURIComponent(h.recurrence_of ?? '')}`}>
            {h.recurrence_of}
          </Link>
        </p>
      )}
      {h.pattern !== undefined && (
        <p style={{ margin: '4px 0' }} aria-label="learned pattern">
          ◆ Matches learned pattern <Link to="/learning#patterns">{h.pattern}</Link> (judged right
          before); its confidence comes from the checks
        </p>
      )}
      {(h.held ?? []).length > 0 && (
        <p style={{ margin: '4px 0' }} aria-label="why it is not proven">
          Not proven: {(h.held ?? []).join('; ')}
        </p>
      )}
      {evidence === 0 ? (
        <p className="muted" style={{ margin: '4px 0' }}>
          No finding for or against it yet.
        </p>
      ) : (
        <ul className="plain">
          <Evidence ids={h.proving} role="proves" byId={byId} />
          <Evidence ids={h.supporting} role="supports" byId={byId} />
          <Evidence ids={h.refuting} role="refutes" byId={byId} />
        </ul>
      )}
      {h.fixes.length > 0 && (
        <p className="muted" style={{ margin: '4px 0' }}>
          Fixes, in order of preference: {h.fixes.join(', ')}
        </p>
      )}
    </li>
  );
}

function Actions({ actions }: { actions: readonly EpisodeAction[] }) {
  return (
    <table className="table" aria-label="actions">
      <thead>
        <tr>
          <th>Fix</th>
          <th>Risk</th>
          <th>State</th>
          <th>Approval</th>
          <th>Verification</th>
          <th>Events</th>
        </tr>
      </thead>
      <tbody>
        {actions.map((a) => (
          <tr key={`${a.fix}-${String(a.events[0] ?? 0)}`}>
            <td>
              {a.title} <code className="muted">{a.fix}</code>
            </td>
            <td>{a.risk}</td>
            <td
              className={
                a.status === 'verified'
                  ? 'ok'
                  : a.status === 'not_verified' || a.status === 'refused'
                    ? 'error'
                    : undefined
              }
            >
              {ACTION_STATUS[a.status]}
            </td>
            <td>
              {a.request_id === null ? (
                '—'
              ) : (
                <Link to={`/approvals?sel=${encodeURIComponent(a.request_id)}`}>
                  {a.request_id}
                </Link>
              )}
            </td>
            <td>
              {a.verification === null
                ? '—'
                : `${a.verification.ok ? '✓' : '✖'} ${a.verification.detail}`}
            </td>
            <td className="seqno">{a.events.map((s) => `#${String(s)}`).join(' ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function EpisodeDiagnosis({ episode }: { episode: Episode }) {
  // api.ts types these fields loosely (unknown[]): the shapes are the contract's.
  const d = episode as unknown as Diagnosis;
  const findings = d.findings ?? [];
  const hypotheses = [...(d.hypotheses ?? [])].sort(
    (a, b) => RANK.indexOf(a.confidence) - RANK.indexOf(b.confidence),
  );
  const decision = d.decision_detail ?? null;
  const actions = d.actions ?? [];
  const byId = new Map(findings.map((f) => [f.id, f] as const));
  const cited = new Set(hypotheses.flatMap((h) => [...h.proving, ...h.supporting, ...h.refuting]));
  const other = findings.filter((f) => !cited.has(f.id));
  const nothing =
    findings.length === 0 && hypotheses.length === 0 && decision === null && actions.length === 0;
  if (nothing && !episode.live) return null;
  return (
    <section aria-label="diagnosis">
      <h2>
        Diagnosis{' '}
        <span className="count">
          {hypotheses.length} hypothes{hypotheses.length === 1 ? 'is' : 'es'}, {findings.length}{' '}
          finding{findings.length === 1 ? '' : 's'}
        </span>
      </h2>
      {nothing && <p className="muted">Nothing read yet: the investigation is starting.</p>}
      {hypotheses.length > 0 && (
        <ol className="plain" aria-label="hypotheses">
          {hypotheses.map((h) => (
            <HypothesisCard key={`${h.cause}-${h.service}`} h={h} byId={byId} />
          ))}
        </ol>
      )}
      {other.length > 0 && (
        <details>
          <summary>Other findings ({other.length}): read, not evidence for any hypothesis</summary>
          <ul className="plain">
            {other.map((f) => (
              <FindingItem key={f.id} f={f} />
            ))}
          </ul>
        </details>
      )}
      {actions.length > 0 && (
        <>
          <h3>Actions</h3>
          <Actions actions={actions} />
        </>
      )}
    </section>
  );
}

export default EpisodeDiagnosis;
