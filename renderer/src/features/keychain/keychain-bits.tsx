// Small pieces of the Keychain page: a fingerprint grouped in fours (with a Copy), the
// health and site-key badges (colour, shape and word), and the line that says which role a
// disabled control needs.
import { Fragment, useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { CopyButton } from '../../shared/clipboard.js';
import {
  fingerprintGroups,
  HEALTH_WORDS,
  SITE_KEY_WORDS,
  type MemberHealth,
  type SiteKeyStatus,
} from './keychain-words.js';

/** The whole fingerprint in groups of four (breaking only between groups), and a Copy. */
export function Fingerprint({ fp, copy = true }: { fp: string; copy?: boolean }) {
  const groups = fingerprintGroups(fp);
  return (
    <span className="fingerprint">
      <code title={fp}>
        {groups.map((g, i) => (
          <Fragment key={i}>
            {i > 0 && (
              <>
                -<wbr />
              </>
            )}
            {g}
          </Fragment>
        ))}
      </code>
      {copy && <CopyButton text={fp} what={`fingerprint ${fp}`} />}
    </span>
  );
}

export function HealthBadge({ health, quiet }: { health: string; quiet: string }) {
  const h = HEALTH_WORDS[health as MemberHealth] ?? { glyph: '?', words: health, tone: 'warn' };
  return (
    <span className={`badge ${h.tone}`} title={quiet}>
      {h.glyph} {h.words}
    </span>
  );
}

export function SiteKeyBadge({ status }: { status: string }) {
  const s = SITE_KEY_WORDS[status as SiteKeyStatus] ?? {
    glyph: '?',
    words: status,
    tone: 'warn',
    meaning: status,
  };
  return (
    <span className={`badge ${s.tone}`} title={s.meaning}>
      {s.glyph} {s.words}
    </span>
  );
}

/** Why a control is disabled, beside it: the role it needs, or the place it is done. */
export function Why({ why }: { why: string | null }) {
  if (why === null) return null;
  return <p className="hint why">{why}</p>;
}

/** The reason an admin-only control is off for `role`, or null when it is on. */
export function adminWhy(admin: boolean, role: string | undefined, doing: string): string | null {
  return admin ? null : `${doing} needs the admin role; you are signed in as ${role ?? 'unknown'}.`;
}

/** The reason an owner-only control (taking over as home) is off for `role`, or null. */
export function ownerWhy(owner: boolean, role: string | undefined, doing: string): string | null {
  return owner ? null : `${doing} needs the owner role; you are signed in as ${role ?? 'unknown'}.`;
}

/** A label and its control joined by id (a control inside its label would be named by its value). */
export function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}

/** A Field holding one input bound to a string (text, url, password, number). */
export function TextField({
  label,
  value,
  onChange,
  disabled,
  ...input
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
} & Pick<
  InputHTMLAttributes<HTMLInputElement>,
  'type' | 'maxLength' | 'autoComplete' | 'spellCheck' | 'inputMode' | 'className' | 'min' | 'max'
>) {
  return (
    <Field label={label}>
      {(id) => (
        <input
          id={id}
          value={value}
          disabled={disabled}
          onChange={(e) => {
            onChange(e.target.value);
          }}
          {...input}
        />
      )}
    </Field>
  );
}

/**
 * A form's primary submit, off while `why` says why (shown beside it) or while `blocked`
 * (busy, or a field still empty).
 */
export function SubmitRow({
  why,
  blocked = false,
  children,
}: {
  why: string | null;
  blocked?: boolean;
  children: ReactNode;
}) {
  return (
    <>
      <p className="actions">
        <button
          type="submit"
          className="primary"
          disabled={why !== null || blocked}
          title={why ?? undefined}
        >
          {children}
        </button>
      </p>
      <Why why={why} />
    </>
  );
}
