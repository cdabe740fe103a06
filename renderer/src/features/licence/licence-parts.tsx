// The Licence page's small parts: a field joined to its label by id, the would-lose refusal
// with Install anyway, a button that follows the caller's `can`, and a text to carry by hand.
import { useId, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../../shared/api.js';
import { type Allowed, type InstallAction, type InstallsView } from './api.js';

/**
 * A label and its control joined by id, not by nesting: a control inside its label would have
 * its value read as part of its name.
 */
export function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}

function lossesOf(error: unknown): string[] | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'would_lose')
    return null;
  const losses = error.body['losses'];
  return Array.isArray(losses) ? losses.map(String) : [];
}

/**
 * A 409 would_lose from POST /v1/licence: what the new licence gives up, with Install anyway
 * (acknowledge) and Keep; any other error is shown as `otherwise`.
 */
export function WouldLose({
  error,
  busy,
  onAnyway,
  onKeep,
  otherwise,
}: {
  error: unknown;
  busy: boolean;
  onAnyway: () => void;
  onKeep: () => void;
  otherwise: ReactNode;
}) {
  const losses = lossesOf(error);
  if (losses === null) return <>{otherwise}</>;
  return (
    <div className="banner managed" role="alert" aria-label="would lose">
      <p>
        <strong>! This licence gives up what the one in force has:</strong>
      </p>
      <ul>
        {losses.map((x) => (
          <li key={x}>{x}</li>
        ))}
      </ul>
      <p className="confirm">
        <button type="button" className="danger" disabled={busy} onClick={onAnyway}>
          Install anyway
        </button>
        <button type="button" className="quiet" onClick={onKeep}>
          Keep the licence in force
        </button>
      </p>
    </div>
  );
}

export const allowed = (can: InstallsView['can'], action: InstallAction): Allowed =>
  can[action] ?? { allowed: false, why: 'this service does not say who may do this' };

/** A button that follows `can`: disabled with its why shown beside it. */
export function CanButton({
  can,
  children,
  busy,
  onClick,
  type = 'button',
  className,
}: {
  can: Allowed;
  children: string;
  busy?: boolean;
  onClick?: () => void;
  type?: 'button' | 'submit';
  className?: string;
}) {
  return (
    <span className="can-button">
      <button
        type={type}
        className={className}
        disabled={!can.allowed || busy === true}
        title={can.allowed ? undefined : (can.why ?? undefined)}
        onClick={onClick}
      >
        {children}
      </button>
      {!can.allowed && can.why && <span className="hint"> {can.why}</span>}
    </span>
  );
}

/** A text to carry by hand: read-only, selectable, with a copy button. */
export function CarryText({ label, text }: { label: string; text: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="carry">
      <Field label={label}>
        {(id) => (
          <textarea
            id={id}
            ref={area}
            readOnly
            rows={Math.min(16, text.split('\n').length + 1)}
            spellCheck={false}
            value={text}
            className="mono"
            onFocus={(e) => {
              e.currentTarget.select();
            }}
          />
        )}
      </Field>
      <button
        type="button"
        onClick={() => {
          const fallback = () => {
            // Outside a secure context the Clipboard API is absent: select and copy.
            area.current?.select();
            setCopied(
              document.execCommand('copy')
                ? 'Copied.'
                : 'Selected: copy it with Ctrl+C (⌘C on a Mac).',
            );
          };
          if (typeof navigator.clipboard === 'undefined') {
            fallback();
            return;
          }
          navigator.clipboard.writeText(text).then(() => {
            setCopied('Copied.');
          }, fallback);
        }}
      >
        Copy text
      </button>
      {copied !== null && (
        <span className="ok" role="status">
          {' '}
          {copied}
        </span>
      )}
    </div>
  );
}

/** The last group of a fingerprint: what a person compares at a glance. */
export const lastGroup = (fingerprint: string): string =>
  fingerprint.split('-').pop() ?? fingerprint;
