// The global halt (console design C.8): a button in the top bar on every page (responders
// and up) that asks for a reason before POST /v1/halt; the halted state from GET /v1/autonomy,
// refetched whenever the live seq moves, shown in the top bar and as a hatched banner under
// it with who, when and why; Resume (admin) asks for a confirmation naming what resumes.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { roleAtLeast } from '../../shared/api.js';
import { Time } from '../../shared/parts.js';
import { autonomyApi, type Halted } from './api.js';
import { autonomyKeys, useAutonomy } from './queries.js';
import { Refusal } from '../../shared/http.js';

/**
 * The halt form: the effect in words, a reason (required), Halt and Cancel. `focus`: the
 * reason takes the focus when shown, as in a confirm someone just opened (the top bar's, the
 * palette's); false where a page merely contains the form (Autonomy), which must not pull
 * the focus on load.
 */
export function HaltForm({
  onDone,
  onCancel,
  focus = true,
}: {
  onDone?: () => void;
  onCancel?: () => void;
  focus?: boolean;
}) {
  const qc = useQueryClient();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [missing, setMissing] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focus) input.current?.focus();
  }, [focus]);
  return (
    <form
      aria-label="Halt all actions"
      noValidate
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel?.();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        if (reason.trim() === '') {
          setMissing(true);
          input.current?.focus();
          return;
        }
        setMissing(false);
        setBusy(true);
        autonomyApi
          .halt(reason)
          .then(async (answer) => {
            qc.setQueryData(autonomyKeys.all, (old: unknown) =>
              old === undefined ? old : { ...(old as object), halted: answer.halted },
            );
            await qc.invalidateQueries({ queryKey: autonomyKeys.all });
            setReason('');
            onDone?.();
          })
          .catch((err: unknown) => {
            setError(err);
          })
          .finally(() => {
            setBusy(false);
          });
      }}
    >
      <p className="hint" style={{ marginTop: 0 }}>
        Stops every action at once, approved ones not yet run included. Diagnosis goes on; nothing
        acts until an admin resumes.
      </p>
      <label style={{ display: 'flex', flexDirection: 'column' }}>
        Reason for halting (required)
        <input
          ref={input}
          name="reason"
          value={reason}
          maxLength={500}
          required
          aria-invalid={missing || undefined}
          aria-describedby={missing ? 'halt-reason-missing' : undefined}
          onChange={(e) => {
            setReason(e.target.value);
          }}
        />
      </label>
      {missing && (
        <p className="error" id="halt-reason-missing" role="alert">
          ⚠ Say why: the reason is shown to everyone until actions resume.
        </p>
      )}
      <p style={{ display: 'flex', gap: 8, marginBottom: 0 }}>
        <button type="submit" className="danger" disabled={busy}>
          ■ Halt now
        </button>
        {onCancel && (
          <button type="button" className="quiet" onClick={onCancel}>
            Cancel
          </button>
        )}
      </p>
      <Refusal error={error} />
    </form>
  );
}

/** Resume (admin): one click asks, the second resumes. */
export function ResumeControl({ role }: { role: string | undefined }) {
  const qc = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const admin = roleAtLeast(role, 'admin');
  if (!asking)
    return (
      <button
        type="button"
        disabled={!admin}
        title={admin ? 'Let actions run again' : 'Resuming needs the admin role'}
        onClick={() => {
          setAsking(true);
        }}
      >
        Resume…
      </button>
    );
  return (
    <span role="group" aria-label="Confirm resume">
      Actions may run again, approved ones included.{' '}
      <button
        type="button"
        className="primary"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setError(null);
          autonomyApi
            .resume()
            .then(async () => {
              qc.setQueryData(autonomyKeys.all, (old: unknown) =>
                old === undefined ? old : { ...(old as object), halted: null },
              );
              await qc.invalidateQueries({ queryKey: autonomyKeys.all });
              setAsking(false);
            })
            .catch((err: unknown) => {
              setError(err);
            })
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        Resume actions
      </button>{' '}
      <button
        type="button"
        className="quiet"
        onClick={() => {
          setAsking(false);
          setError(null);
        }}
      >
        Cancel
      </button>
      <Refusal error={error} />
    </span>
  );
}

export function haltedText(h: Halted) {
  return (
    <>
      <strong>■ All actions halted</strong> by {h.by} at <Time iso={h.at} />: “{h.reason}”.
      Diagnosis goes on; nothing acts until resumed.
    </>
  );
}

/** The hatched banner under the top bar on every page while halted. */
export function HaltBanner({ role }: { role: string | undefined }) {
  const autonomy = useAutonomy();
  const h = autonomy.data?.halted;
  if (h === null || h === undefined) return null;
  return (
    <div className="banner halted" role="status" aria-label="halted">
      {haltedText(h)} <ResumeControl role={role} />
    </div>
  );
}

/** Why the halt cannot be sent while the service does not answer. */
const UNREACHABLE = 'Halting is not possible now: the service cannot be reached';

/**
 * The top bar's control: HALTED when halted; else Halt all actions (responders and up).
 * While the service cannot be reached it is disabled with the reason, and a halt is shown
 * as last known: neither may look like a live control.
 */
export function HaltButton({
  role,
  reachable = true,
}: {
  role: string | undefined;
  reachable?: boolean;
}) {
  const autonomy = useAutonomy();
  const [open, setOpen] = useState(false);
  const h = autonomy.data?.halted;
  useEffect(() => {
    if (!reachable) setOpen(false);
  }, [reachable]);
  if (h !== null && h !== undefined)
    return (
      <span
        className="badge fail"
        role="status"
        title={`halted by ${h.by} at ${h.at}: ${h.reason}`}
        style={{ fontWeight: 700 }}
      >
        ■ HALTED{reachable ? '' : ' (last known)'}
      </span>
    );
  if (!roleAtLeast(role, 'responder')) return null;
  return (
    <span style={{ position: 'relative' }}>
      <button
        type="button"
        className="halt"
        aria-expanded={open}
        disabled={!reachable}
        title={
          !reachable
            ? UNREACHABLE
            : autonomy.isError
              ? 'The halt state could not be read; halting still works'
              : 'Stop every action now'
        }
        onClick={() => {
          setOpen(!open);
        }}
      >
        ■ Halt all actions
      </button>
      {open && (
        <div
          role="dialog"
          aria-label="Confirm halt"
          style={{
            position: 'absolute',
            right: 0,
            top: 'calc(100% + 6px)',
            width: 340,
            padding: 12,
            background: 'var(--bg)',
            border: '1px solid var(--fail)',
            borderRadius: 8,
            boxShadow: '0 4px 16px rgba(0,0,0,0.25)',
            zIndex: 2,
          }}
        >
          <HaltForm
            onDone={() => {
              setOpen(false);
            }}
            onCancel={() => {
              setOpen(false);
            }}
          />
        </div>
      )}
    </span>
  );
}
