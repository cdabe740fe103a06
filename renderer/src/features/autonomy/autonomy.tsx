// Autonomy (console design C.6, C.8): the global halt first (who, when, why; Halt with a
// reason, Resume for admins), then the default level and each service's own level with a
// level picker, then fix mode. Lowering applies at once; raising (and fix mode draft) becomes
// an approval request that needs two admins other than the requester, shown here with its
// quorum state. A refusal (409) is shown with the service's own words.
import { useMe } from '../people/index.js';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { roleAtLeast } from '../../shared/api.js';
import { HaltForm, haltedText, ResumeControl } from './halt-button.js';
import { Empty, Link, Time } from '../../shared/parts.js';
import { approvalKeys, quorumText, type ApprovalRequest } from '../approvals/index.js';
import {
  autonomyApi,
  type AutonomyLevel,
  type AutonomyView,
  type FixMode,
  type SetAnswer,
} from './api.js';
import { autonomyKeys, useAutonomy } from './queries.js';
import { FIX_MODE_MEANING, FIX_MODES, LEVEL_MEANING, LEVELS } from './autonomy-words.js';
import { explain } from '../../shared/http.js';

type Outcome = { ok: boolean; text: ReactNode } | null;

function RequestLine({ r }: { r: ApprovalRequest }) {
  return (
    <span>
      “{r.title}” requested by {r.requested_by} <Time iso={r.requested_at} /> —{' '}
      <strong className="quorum">{quorumText(r)}</strong> ·{' '}
      <Link to={`/approvals?sel=${encodeURIComponent(r.request_id)}`}>open the request</Link>
    </span>
  );
}

/** The words for an answer of POST /v1/autonomy or /v1/fix-mode. */
function outcomeOf<T>(
  answer: SetAnswer<T>,
  applied: (value: T) => string,
  quorum: number,
): { ok: boolean; text: ReactNode } {
  if ('requested' in answer)
    return {
      ok: true,
      text: `Requested, needs ${String(answer.requested.quorum || quorum)} approvers: ${quorumText(answer.requested)} so far.`,
    };
  return { ok: true, text: applied(answer.applied) };
}

function LevelPicker({
  label,
  current,
  disabled,
  why,
  onPick,
}: {
  label: string;
  current: AutonomyLevel;
  disabled: boolean;
  why: string | null;
  onPick: (level: AutonomyLevel) => void;
}) {
  return (
    <fieldset className="segmented" aria-label={label}>
      {LEVELS.map((l) => (
        <button
          key={l}
          type="button"
          aria-pressed={l === current}
          disabled={disabled}
          title={why ?? LEVEL_MEANING[l]}
          onClick={() => {
            if (l !== current) onPick(l);
          }}
        >
          {l}
        </button>
      ))}
    </fieldset>
  );
}

function useSetLevel() {
  const qc = useQueryClient();
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const set = (service: string, from: AutonomyLevel, level: AutonomyLevel, quorum: number) => {
    setBusy(service);
    setOutcomes((o) => ({ ...o, [service]: null }));
    autonomyApi
      .set(service, level)
      .then((answer) => {
        setOutcomes((o) => ({
          ...o,
          [service]: outcomeOf(
            answer,
            (v) =>
              v.level === from
                ? `Unchanged: ${v.level}.`
                : LEVELS.indexOf(v.level) < LEVELS.indexOf(from)
                  ? `Lowered to ${v.level}: applies at once.`
                  : `Set to ${v.level}.`,
            quorum,
          ),
        }));
      })
      .catch((err: unknown) => {
        setOutcomes((o) => ({ ...o, [service]: { ok: false, text: explain(err) } }));
      })
      .finally(() => {
        setBusy(null);
        void qc.invalidateQueries({ queryKey: autonomyKeys.all });
        void qc.invalidateQueries({ queryKey: approvalKeys.all });
      });
  };
  return { outcomes, busy, set };
}

function OutcomeNote({ outcome }: { outcome: Outcome | undefined }) {
  if (outcome === null || outcome === undefined) return null;
  return outcome.ok ? (
    <p className="ok" role="status" style={{ margin: '4px 0' }}>
      {outcome.text}
    </p>
  ) : (
    <p className="error" role="alert" style={{ margin: '4px 0' }}>
      ⚠ {outcome.text}
    </p>
  );
}

function HaltSection({ view, role }: { view: AutonomyView | undefined; role: string | undefined }) {
  const h = view?.halted;
  return (
    <section
      aria-label="Global halt"
      className={h ? 'banner' : undefined}
      style={{
        border: `2px solid ${h ? 'var(--fail)' : 'var(--line)'}`,
        borderRadius: 8,
        padding: '8px 16px',
        marginBottom: 16,
      }}
    >
      <h2 style={{ marginTop: 4 }}>Global halt</h2>
      {h ? (
        <p role="status">
          {haltedText(h)} <ResumeControl role={role} />
        </p>
      ) : (
        <>
          <p role="status">
            <strong>✓ Not halted</strong>: actions run as each service's autonomy allows.
          </p>
          {roleAtLeast(role, 'responder') ? (
            <HaltForm focus={false} />
          ) : (
            <p className="hint">Halting needs the responder role.</p>
          )}
        </>
      )}
    </section>
  );
}

function AddService({
  disabled,
  why,
  onSet,
}: {
  disabled: boolean;
  why: string | null;
  onSet: (service: string, level: AutonomyLevel) => void;
}) {
  const [service, setService] = useState('');
  const [level, setLevel] = useState<AutonomyLevel>('shadow');
  return (
    <form
      className="filters"
      aria-label="Set a service's own level"
      onSubmit={(e) => {
        e.preventDefault();
        if (service.trim() === '') return;
        onSet(service.trim(), level);
      }}
    >
      <label>
        Service
        <input
          name="service"
          value={service}
          maxLength={200}
          disabled={disabled}
          required
          onChange={(e) => {
            setService(e.target.value);
          }}
        />
      </label>
      <span style={{ display: 'flex', flexDirection: 'column' }}>
        <label htmlFor="autonomy-new-level" className="muted">
          Level
        </label>
        <select
          id="autonomy-new-level"
          value={level}
          disabled={disabled}
          title={LEVEL_MEANING[level]}
          onChange={(e) => {
            setLevel(e.target.value as AutonomyLevel);
          }}
        >
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </span>
      <button type="submit" disabled={disabled} title={why ?? undefined}>
        Set level
      </button>
    </form>
  );
}

function FixModeSection({ view, admin }: { view: AutonomyView; admin: boolean }) {
  const qc = useQueryClient();
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const pending = view.requests.filter((r) => r.kind === 'fix_mode' && r.status === 'pending');
  const pick = (mode: FixMode) => {
    setBusy(true);
    setOutcome(null);
    autonomyApi
      .fixMode(mode)
      .then((answer) => {
        setOutcome(
          outcomeOf(
            answer,
            (v) =>
              v.mode === view.fix_mode
                ? `Unchanged: ${v.mode}.`
                : `Fix mode is ${v.mode}: applies at once.`,
            view.drafted_quorum,
          ),
        );
      })
      .catch((err: unknown) => {
        setOutcome({ ok: false, text: explain(err) });
      })
      .finally(() => {
        setBusy(false);
        void qc.invalidateQueries({ queryKey: autonomyKeys.all });
        void qc.invalidateQueries({ queryKey: approvalKeys.all });
      });
  };
  return (
    <section aria-label="Fix mode">
      <h2>Fix mode</h2>
      <p>
        Now <strong>{view.fix_mode}</strong>: {FIX_MODE_MEANING[view.fix_mode]}. Going to draft
        needs {view.drafted_quorum} admins to approve; going back to advise applies at once.
      </p>
      <fieldset className="segmented" aria-label="fix mode">
        {FIX_MODES.map((m) => (
          <button
            key={m}
            type="button"
            aria-pressed={m === view.fix_mode}
            disabled={!admin || busy}
            title={admin ? FIX_MODE_MEANING[m] : 'Changing fix mode needs the admin role'}
            onClick={() => {
              if (m !== view.fix_mode) pick(m);
            }}
          >
            {m}
          </button>
        ))}
      </fieldset>
      <OutcomeNote outcome={outcome} />
      {pending.map((r) => (
        <p key={r.request_id}>
          Pending: <RequestLine r={r} />
        </p>
      ))}
    </section>
  );
}

export function AutonomyPage() {
  const me = useMe();
  const role = me.data?.role;
  const autonomy = useAutonomy();
  const { outcomes, busy, set } = useSetLevel();
  const view = autonomy.data;
  const admin = roleAtLeast(role, 'admin');
  const why = admin ? null : 'Changing autonomy needs the admin role';
  const pendingFor = (service: string) =>
    (view?.requests ?? []).filter(
      (r) => r.kind === 'autonomy' && r.status === 'pending' && r.subject['service'] === service,
    );
  const rows: { service: string; title: string; level: AutonomyLevel }[] = view
    ? [
        {
          service: '*',
          title: 'Default (every service without its own level)',
          level: view.default,
        },
        ...view.services
          .slice()
          .sort((a, b) => a.service.localeCompare(b.service))
          .map((s) => ({ service: s.service, title: s.service, level: s.level })),
      ]
    : [];
  const known = new Set(rows.map((r) => r.service));
  // A raise for a service with no level of its own yet has a row too.
  for (const r of view?.requests ?? []) {
    const s = r.subject['service'];
    if (r.kind === 'autonomy' && typeof s === 'string' && !known.has(s) && view) {
      known.add(s);
      rows.push({ service: s, title: s, level: view.default });
    }
  }
  return (
    <main className="page">
      <h1>Autonomy</h1>
      {autonomy.isError && (
        <p className="error" role="alert">
          ⚠ Could not read autonomy: {explain(autonomy.error)}{' '}
          <button type="button" onClick={() => void autonomy.refetch()}>
            Retry
          </button>
        </p>
      )}
      <HaltSection view={view} role={role} />
      {autonomy.isPending && <p className="muted">Loading…</p>}
      {view && (
        <>
          <section aria-label="Autonomy levels">
            <h2>Levels</h2>
            <ul className="hint">
              {LEVELS.map((l) => (
                <li key={l}>{LEVEL_MEANING[l]}</li>
              ))}
            </ul>
            <p>
              Lowering a level applies at once. Raising one is a request that needs{' '}
              {view.raise_quorum} admins other than you to approve.
            </p>
            {view.raise_impossible !== null && (
              <p className="banner managed" role="note">
                ◆ Raising cannot be approved now: {view.raise_impossible}
              </p>
            )}
            <table className="table">
              <thead>
                <tr>
                  <th>Service</th>
                  <th>Level</th>
                  <th>Set level</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.service} aria-label={`autonomy of ${row.title}`}>
                    <td>{row.service === '*' ? <strong>{row.title}</strong> : row.title}</td>
                    <td title={LEVEL_MEANING[row.level]}>
                      <strong>{row.level}</strong>
                      {row.service !== '*' &&
                        !view.services.some((s) => s.service === row.service) && (
                          <span className="muted"> (the default)</span>
                        )}
                    </td>
                    <td>
                      <LevelPicker
                        label={`level of ${row.title}`}
                        current={row.level}
                        disabled={!admin || busy === row.service}
                        why={why}
                        onPick={(level) => {
                          set(row.service, row.level, level, view.raise_quorum);
                        }}
                      />
                      <OutcomeNote outcome={outcomes[row.service]} />
                      {pendingFor(row.service).map((r) => (
                        <p key={r.request_id} style={{ margin: '4px 0' }}>
                          Pending: <RequestLine r={r} />
                        </p>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <AddService
              disabled={!admin || busy !== null}
              why={why}
              onSet={(service, level) => {
                const now = view.services.find((s) => s.service === service)?.level ?? view.default;
                set(service, now, level, view.raise_quorum);
              }}
            />
            {Object.entries(outcomes)
              .filter(([s]) => !known.has(s))
              .map(([s, o]) => (
                <OutcomeNote key={s} outcome={o} />
              ))}
          </section>
          <FixModeSection view={view} admin={admin} />
          <section aria-label="Pending requests">
            <h2>Pending requests</h2>
            {view.requests.length === 0 ? (
              <Empty>No raise of autonomy or fix mode is waiting for approvers.</Empty>
            ) : (
              <ul>
                {view.requests.map((r) => (
                  <li key={r.request_id}>
                    <RequestLine r={r} />
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </main>
  );
}
