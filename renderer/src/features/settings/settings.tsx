// Settings: the branding form and the impact figures (admin). PUT /v1/branding replaces the whole document, so the
// form always sends every field; on success the ['branding'] query is refreshed and the
// console shows the change at once. A 400 is shown beside the field the server names.
import { useMe } from '../people/index.js';
import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useRef, useState } from 'react';
import { type Branding, type BrandingTheme, brandingApi } from '../branding/index.js';
import { ApiError } from '../../shared/api.js';
import {
  brandingKey,
  contrastRatio,
  readableAccent,
  SupportLinks,
  useBranding,
} from '../branding/index.js';
import { SignInSettings } from '../access/index.js';
import { ErrorNote, Time } from '../../shared/parts.js';
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';
import { ImpactSection } from './impact.js';
import './settings.css';

/** "each at most 500 KB": decoded bytes (server/branding/branding.schemas.ts). */
const LOGO_MAX_BYTES = 512_000;
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'];
const MAX_LINKS = 8;
const HEX = /^#[0-9a-f]{6}$/i;

type Slot = 'light' | 'dark' | 'mark';
const SLOTS: readonly { slot: Slot; title: string; hint: string }[] = [
  { slot: 'light', title: 'Logo for light backgrounds', hint: 'Shown in the light theme' },
  { slot: 'dark', title: 'Logo for dark backgrounds', hint: 'Shown in the dark theme' },
  { slot: 'mark', title: 'Mark', hint: 'The small square sign; shown first, and as the tab icon' },
];

const THEMES: readonly [BrandingTheme, string][] = [
  ['light', 'Light'],
  ['dark', 'Dark'],
  ['system', 'System (follow the operating system)'],
];

interface Row {
  id: number;
  label: string;
  url: string;
}

interface Draft {
  name: string;
  theme: BrandingTheme;
  accent: string;
  logos: Record<Slot, string | null>;
  support: Row[];
}

let nextRow = 0;
const row = (label = '', url = ''): Row => ({ id: ++nextRow, label, url });

const draftOf = (b: Branding): Draft => ({
  name: b.name,
  theme: b.theme,
  accent: b.accent,
  logos: { ...b.logos },
  support: b.support.map((l) => row(l.label, l.url)),
});

/** The document a draft stands for, as PUT takes it. */
const bodyOf = (d: Draft) => ({
  name: d.name,
  theme: d.theme,
  accent: d.accent.trim().toLowerCase(),
  logos: d.logos,
  support: d.support.map(({ label, url }) => ({ label, url })),
});

const { idOf, FieldError, invalidIf } = fieldProblems('branding');

/** Decoded bytes of a data URI (base64 or percent-encoded). */
function bytesOf(uri: string): number {
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

function size(bytes: number): string {
  const exact = `${bytes.toLocaleString('en')} bytes`;
  return bytes < 1024 ? exact : `${(bytes / 1024).toFixed(1)} KB (${exact})`;
}

function AccentHint({ accent }: { accent: string }) {
  if (!HEX.test(accent.trim())) return null;
  const onLight = contrastRatio(accent, '#ffffff') ?? 0;
  const onDark = contrastRatio(accent, '#14171b') ?? 0;
  const note = (scheme: 'light' | 'dark') =>
    readableAccent(accent, scheme) === null ? ' (below 4.5:1: the default is kept)' : '';
  return (
    <p className="hint" id="branding-accent-hint">
      Links and focus rings use it where it is readable: {onLight.toFixed(1)}:1 on the light
      background{note('light')}, {onDark.toFixed(1)}:1 on the dark background{note('dark')}.
    </p>
  );
}

function LogoField({
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
    setRefused(null);
    if (file.size > LOGO_MAX_BYTES) {
      setRefused(
        `${file.name} is ${size(file.size)}; a logo may be at most 500 KB ` +
          `(${LOGO_MAX_BYTES.toLocaleString('en')} bytes). Choose a smaller file.`,
      );
      return;
    }
    if (!LOGO_TYPES.includes(file.type)) {
      setRefused(
        `${file.name} is ${file.type === '' ? 'of an unknown type' : file.type}; ` +
          'a logo is a PNG, JPEG, WebP or SVG image.',
      );
      return;
    }
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

function BrandingForm({ saved, canEdit }: { saved: Branding; canEdit: boolean }) {
  const qc = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(saved));
  const [base, setBase] = useState<Draft>(() => draftOf(saved));
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [general, setGeneral] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Branding | null>(null);
  const formRef = useRef<HTMLFormElement>(null);

  const dirty = JSON.stringify(bodyOf(draft)) !== JSON.stringify(bodyOf(base));
  const disabled = !canEdit || busy;

  const edit = (change: Partial<Draft>, field?: string) => {
    setDraft((d) => ({ ...d, ...change }));
    setDone(null);
    if (field !== undefined && problem?.field === field) setProblem(null);
  };
  const editRow = (index: number, change: Partial<Row>, field: string) => {
    edit({ support: draft.support.map((r, i) => (i === index ? { ...r, ...change } : r)) }, field);
  };

  // Take the keyboard to the field the server complained about.
  useEffect(() => {
    if (problem === null) return;
    const target = formRef.current?.querySelector<HTMLElement>(`#${idOf(problem.field)}`);
    target?.focus();
  }, [problem]);

  const known = new Set([
    'name',
    'theme',
    'accent',
    'logos.light',
    'logos.dark',
    'logos.mark',
    ...draft.support.flatMap((_, i) => [`support.${String(i)}.label`, `support.${String(i)}.url`]),
  ]);

  const submit = () => {
    setProblem(null);
    setGeneral(null);
    setDone(null);
    if (!HEX.test(draft.accent.trim())) {
      setProblem({ field: 'accent', message: 'Write the accent as #rrggbb, for example #3b6ac0' });
      return;
    }
    setBusy(true);
    brandingApi
      .putBranding(bodyOf(draft))
      .then((answer) => {
        qc.setQueryData(brandingKey, answer);
        void qc.invalidateQueries({ queryKey: brandingKey });
        const next = draftOf(answer);
        setDraft(next);
        setBase(next);
        setDone(answer);
      })
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 403) {
          setGeneral(new Error('Only an admin can change the branding'));
        } else if (err instanceof ApiError && err.status === 413) {
          setGeneral(new Error('The logos together are too large for one save (2.5 MiB at most)'));
        } else if (
          err instanceof ApiError &&
          err.status === 400 &&
          err.field !== undefined &&
          known.has(err.field)
        ) {
          setProblem({ field: err.field, message: err.message });
        } else {
          setGeneral(err);
        }
      })
      .finally(() => {
        setBusy(false);
      });
  };

  return (
    <form
      ref={formRef}
      className="settings-form"
      aria-label="Branding"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {!canEdit && (
        <p className="banner" role="note">
          Only an admin can change the branding.
        </p>
      )}
      <div className="field">
        <label htmlFor={idOf('name')}>Name</label>
        <input
          id={idOf('name')}
          name="name"
          value={draft.name}
          maxLength={80}
          required
          disabled={disabled}
          {...invalidIf('name', problem, 'branding-name-hint')}
          onChange={(e) => {
            edit({ name: e.target.value }, 'name');
          }}
        />
        <span className="hint" id="branding-name-hint">
          The title of the window and the top bar, 1 to 80 characters.
        </span>
      </div>
      <FieldError field="name" problem={problem} />

      <fieldset id={idOf('theme')} tabIndex={-1} {...invalidIf('theme', problem)}>
        <legend>Theme</legend>
        <div className="choices">
          {THEMES.map(([value, label]) => (
            <label key={value}>
              <input
                type="radio"
                name="theme"
                value={value}
                checked={draft.theme === value}
                disabled={disabled}
                onChange={() => {
                  edit({ theme: value }, 'theme');
                }}
              />{' '}
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      <FieldError field="theme" problem={problem} />

      <fieldset>
        <legend>Accent colour</legend>
        <div className="filters">
          <label>
            Accent colour
            <input
              type="color"
              value={
                HEX.test(draft.accent.trim()) ? draft.accent.trim().toLowerCase() : base.accent
              }
              disabled={disabled}
              onChange={(e) => {
                edit({ accent: e.target.value }, 'accent');
              }}
            />
          </label>
          <label>
            Accent colour as #rrggbb
            <input
              id={idOf('accent')}
              name="accent"
              value={draft.accent}
              maxLength={7}
              spellCheck={false}
              autoComplete="off"
              disabled={disabled}
              {...invalidIf('accent', problem, 'branding-accent-hint')}
              onChange={(e) => {
                edit({ accent: e.target.value }, 'accent');
              }}
            />
          </label>
        </div>
        <AccentHint accent={draft.accent} />
        <FieldError field="accent" problem={problem} />
      </fieldset>

      {SLOTS.map(({ slot, title, hint }) => (
        <LogoField
          key={slot}
          slot={slot}
          title={title}
          hint={hint}
          value={draft.logos[slot]}
          problem={problem}
          disabled={disabled}
          onChange={(uri) => {
            edit({ logos: { ...draft.logos, [slot]: uri } }, `logos.${slot}`);
          }}
        />
      ))}

      <fieldset>
        <legend>
          Support links{' '}
          <span className="count">
            {draft.support.length} of {MAX_LINKS}
          </span>
        </legend>
        <p className="hint">Where people get help: http://, https:// or mailto: links.</p>
        {draft.support.map((r, i) => {
          const n = String(i + 1);
          const labelField = `support.${String(i)}.label`;
          const urlField = `support.${String(i)}.url`;
          return (
            <div key={r.id} className="support-row">
              <div className="filters">
                <label>
                  <span>
                    Label<span className="visually-hidden"> of link {n}</span>
                  </span>
                  <input
                    id={idOf(labelField)}
                    value={r.label}
                    maxLength={60}
                    disabled={disabled}
                    {...invalidIf(labelField, problem)}
                    onChange={(e) => {
                      editRow(i, { label: e.target.value }, labelField);
                    }}
                  />
                </label>
                <label className="grow">
                  <span>
                    URL<span className="visually-hidden"> of link {n}</span>
                  </span>
                  <input
                    id={idOf(urlField)}
                    type="url"
                    value={r.url}
                    maxLength={500}
                    placeholder="https://…"
                    disabled={disabled}
                    {...invalidIf(urlField, problem)}
                    onChange={(e) => {
                      editRow(i, { url: e.target.value }, urlField);
                    }}
                  />
                </label>
                <button
                  type="button"
                  disabled={disabled}
                  onClick={() => {
                    setProblem(null);
                    edit({ support: draft.support.filter((_, j) => j !== i) });
                  }}
                >
                  Remove<span className="visually-hidden"> link {n}</span>
                </button>
              </div>
              <FieldError field={labelField} problem={problem} />
              <FieldError field={urlField} problem={problem} />
            </div>
          );
        })}
        <button
          type="button"
          disabled={disabled || draft.support.length >= MAX_LINKS}
          title={
            draft.support.length >= MAX_LINKS ? `At most ${String(MAX_LINKS)} links` : undefined
          }
          onClick={() => {
            edit({ support: [...draft.support, row()] });
          }}
        >
          Add a link
        </button>
      </fieldset>

      <div className="actions">
        <button type="submit" disabled={disabled || !dirty}>
          {busy ? 'Saving…' : 'Save branding'}
        </button>
        <button
          type="button"
          className="quiet"
          disabled={disabled || !dirty}
          onClick={() => {
            setDraft(base);
            setProblem(null);
            setGeneral(null);
          }}
        >
          Discard changes
        </button>
        {dirty && !busy && <span className="muted">Unsaved changes</span>}
        {done !== null && !dirty && (
          <span className="ok" role="status">
            ✓ Saved; the console shows it now.
          </span>
        )}
      </div>
      <ErrorNote error={general} />
    </form>
  );
}

export function SettingsPage() {
  const branding = useBranding();
  const me = useMe();
  const b = branding.data;
  const role = me.data?.role;
  return (
    <main className="page settings">
      <h1>Settings</h1>
      <h2>Branding</h2>
      <p className="hint">
        The name, logos, theme, accent colour and support links of this install. Severity and result
        colours are not brandable.
      </p>
      <ErrorNote error={branding.error} />
      {b && (
        <>
          <dl className="facts">
            <dt>Last set</dt>
            <dd>
              {b.set_at === null ? (
                'never (the defaults)'
              ) : (
                <>
                  <Time iso={b.set_at} /> by {b.set_by ?? 'unknown'}
                </>
              )}
            </dd>
            <dt>Support</dt>
            <dd>{b.support.length === 0 ? 'no links' : <SupportLinks links={b.support} />}</dd>
          </dl>
          {me.data !== undefined && (
            <BrandingForm saved={b} canEdit={role === 'admin' || role === 'owner'} />
          )}
        </>
      )}
      {me.data !== undefined &&
        (role === 'admin' || role === 'owner' ? (
          <ImpactSection />
        ) : (
          <>
            <h2 id="impact">Impact figures</h2>
            <p className="banner" role="note">
              Only an admin can see and change the impact figures the scorecard counts minutes saved
              with; you are {role}.
            </p>
          </>
        ))}
      {me.data !== undefined &&
        (role === 'admin' || role === 'owner' ? (
          <Suspense fallback={<p className="muted">Loading the sign-in settings…</p>}>
            <SignInSettings myEmail={me.data.email ?? ''} />
          </Suspense>
        ) : (
          <>
            <h2 id="access">Access, mail and single sign-on</h2>
            <p className="banner" role="note">
              Only an admin can see and change who may sign in, the mail settings and single
              sign-on; you are {role}.
            </p>
          </>
        ))}
    </main>
  );
}
