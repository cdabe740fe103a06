// The branding form (Settings): PUT /v1/branding replaces the whole document, so the form
// always sends every field; on success the branding query is refreshed and the console shows
// the change at once. A 400 is shown beside the field the server names.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import {
  BACKGROUND,
  type Branding,
  type BrandingInput,
  type BrandingTheme,
  brandingApi,
  brandingKeys,
  contrastRatio,
  readableAccent,
} from '../branding/index.js';
import { LogoField, type Slot } from './logo-field.js';
import { ApiError } from '../../shared/api.js';
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';
import { ErrorNote } from '../../shared/parts.js';

const MAX_LINKS = 8;
const HEX = /^#[0-9a-f]{6}$/i;

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

export const draftOf = (b: Branding): Draft => ({
  name: b.name,
  theme: b.theme,
  accent: b.accent,
  logos: { ...b.logos },
  support: b.support.map((l) => row(l.label, l.url)),
});

/** The document a draft stands for, as PUT takes it. */
export const bodyOf = (d: Draft): BrandingInput => ({
  name: d.name,
  theme: d.theme,
  accent: d.accent.trim().toLowerCase(),
  logos: d.logos,
  support: d.support.map(({ label, url }) => ({ label, url })),
});

const { idOf, FieldError, invalidIf } = fieldProblems('branding');

/** Decoded bytes of a data URI (base64 or percent-encoded). */
function AccentHint({ accent }: { accent: string }) {
  if (!HEX.test(accent.trim())) return null;
  const onLight = contrastRatio(accent, BACKGROUND.light) ?? 0;
  const onDark = contrastRatio(accent, BACKGROUND.dark) ?? 0;
  const note = (scheme: 'light' | 'dark') =>
    readableAccent(accent, scheme) === null ? ' (below 4.5:1: the default is kept)' : '';
  return (
    <p className="hint" id="branding-accent-hint">
      Links and focus rings use it where it is readable: {onLight.toFixed(1)}:1 on the light
      background{note('light')}, {onDark.toFixed(1)}:1 on the dark background{note('dark')}.
    </p>
  );
}

export function BrandingForm({ saved, canEdit }: { saved: Branding; canEdit: boolean }) {
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
        qc.setQueryData(brandingKeys.all, answer);
        void qc.invalidateQueries({ queryKey: brandingKeys.all });
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
