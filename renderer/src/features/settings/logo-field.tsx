// One logo slot of the branding form: a preview with its size, a file chooser that refuses a
// file over 500 KB or of another type before anything is sent, and Remove.
import { useState } from 'react';
import type { LogoSlot, LogoType } from '../../../../server/branding/branding.schemas.js';
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';

/** "each at most 500 KB": decoded bytes (LOGO_MAX_BYTES in server/branding/branding.schemas.ts;
 * a value, which the console cannot import from the server). */
export const LOGO_MAX_BYTES = 512_000;
const LOGO_TYPES: readonly LogoType[] = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'];

export type Slot = LogoSlot;

const { idOf, FieldError } = fieldProblems('branding');

/** Decoded bytes of a data URI (base64 or percent-encoded). */
export function bytesOf(uri: string): number {
  const comma = uri.indexOf(',');
  const payload = uri.slice(comma + 1);
  if (/;base64$/i.test(uri.slice(0, comma))) {
    const pad = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
    return Math.floor((payload.length * 3) / 4) - pad;
  }
  try {
    return new TextEncoder().encode(decodeURIComponent(payload)).length;
  } catch {
    return payload.length;
  }
}

export function size(bytes: number): string {
  const exact = `${bytes.toLocaleString('en')} bytes`;
  return bytes < 1024 ? exact : `${(bytes / 1024).toFixed(1)} KB (${exact})`;
}

/** Why a chosen file cannot be a logo (too large, not an image type), or null. */
export function logoRefusal(file: { name: string; size: number; type: string }): string | null {
  if (file.size > LOGO_MAX_BYTES)
    return (
      `${file.name} is ${size(file.size)}; a logo may be at most 500 KB ` +
      `(${LOGO_MAX_BYTES.toLocaleString('en')} bytes). Choose a smaller file.`
    );
  if (!(LOGO_TYPES as readonly string[]).includes(file.type))
    return (
      `${file.name} is ${file.type === '' ? 'of an unknown type' : file.type}; ` +
      'a logo is a PNG, JPEG, WebP or SVG image.'
    );
  return null;
}

export function LogoField({
  slot,
  title,
  hint,
  value,
  problem,
  disabled,
  onChange,
}: {
  slot: Slot;
  title: string;
  hint: string;
  value: string | null;
  problem: FieldProblem | null;
  disabled: boolean;
  onChange: (uri: string | null) => void;
}) {
  const field = `logos.${slot}`;
  const [refused, setRefused] = useState<string | null>(null);
  const read = (file: File) => {
    const refusal = logoRefusal(file);
    setRefused(refusal);
    if (refusal !== null) return;
    const reader = new FileReader();
    reader.onload = () => {
      if (typeof reader.result === 'string') onChange(reader.result);
    };
    reader.onerror = () => {
      setRefused(`${file.name} could not be read.`);
    };
    reader.readAsDataURL(file);
  };
  return (
    <fieldset className="logo-slot">
      <legend>{title}</legend>
      <p className="hint">{hint}. PNG, JPEG, WebP or SVG, at most 500 KB.</p>
      <div className="logo-row">
        {value === null ? (
          <span className="muted">None</span>
        ) : (
          <>
            <img
              className={`logo-preview on-${slot === 'dark' ? 'dark' : 'light'}`}
              src={value}
              alt={`Preview of the ${title.toLowerCase()}`}
            />
            <span className="muted">{size(bytesOf(value))}</span>
          </>
        )}
      </div>
      <div className="filters">
        <label>
          <span>
            Choose an image<span className="visually-hidden"> for the {title.toLowerCase()}</span>
          </span>
          <input
            id={idOf(field)}
            type="file"
            accept={LOGO_TYPES.join(',')}
            disabled={disabled}
            aria-invalid={refused !== null || problem?.field === field || undefined}
            aria-describedby={
              refused !== null
                ? `${idOf(field)}-refused`
                : problem?.field === field
                  ? `${idOf(field)}-error`
                  : undefined
            }
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file !== undefined) read(file);
              // Choosing the same file again is a change too.
              e.target.value = '';
            }}
          />
        </label>
        <button
          type="button"
          disabled={disabled || value === null}
          onClick={() => {
            setRefused(null);
            onChange(null);
          }}
        >
          Remove<span className="visually-hidden"> the {title.toLowerCase()}</span>
        </button>
      </div>
      {refused !== null && (
        <p className="error field-error" id={`${idOf(field)}-refused`} role="alert">
          ⚠ {refused}
        </p>
      )}
      <FieldError field={field} problem={problem} />
    </fieldset>
  );
}
