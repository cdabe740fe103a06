// The form that adds or edits a connection: pick a kind, fill the settings its catalogue entry
// lists, test it before saving. A 400 naming a field is shown beside that field and takes the
// keyboard there; a 409 means a file manages the connectors; a 403 says who may change them.
import { statusKeys } from '../status/index.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import {
  type Connector,
  type ConnectorHealth,
  type ConnectorInput,
  type ConnectorKind,
  type ConnectorSetting,
  type TestInput,
  connectorApi,
} from './api.js';
import { ApiError } from '../../shared/api.js';
import { Empty, ErrorNote } from '../../shared/parts.js';
import { type FieldProblem } from '../../shared/field-problems.js';
import {
  bodyOf,
  defaultText,
  type Draft,
  draftOf,
  frameworkProblem,
  NAME,
  shown,
} from './draft.js';
import { connectorKeys } from './queries.js';
import { connectionFields, Required, SettingField } from './setting-field.js';

const { idOf, FieldError, invalidIf } = connectionFields;

function KindPicker({
  kinds,
  value,
  disabled,
  onPick,
}: {
  kinds: ConnectorKind[];
  value: string;
  disabled: boolean;
  onPick: (kind: ConnectorKind) => void;
}) {
  return (
    <fieldset id={idOf('kind')} tabIndex={-1}>
      <legend>Kind</legend>
      <div className="kinds">
        {kinds.map((k) => (
          <label key={k.kind} className={`kind-card${value === k.kind ? ' picked' : ''}`}>
            <span className="kind-title">
              <input
                type="radio"
                name="kind"
                value={k.kind}
                checked={value === k.kind}
                disabled={disabled}
                onChange={() => {
                  onPick(k);
                }}
              />{' '}
              {k.title} <span className="muted">({k.kind})</span>
            </span>
            <span className="hint">{k.description}</span>
            <span className="capabilities">
              {k.capabilities.map((c) => (
                <span key={c} className="badge">
                  {c}
                </span>
              ))}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function ConnectionForm({
  kinds,
  framework,
  editing,
  disabled: locked,
  onManaged,
  onDone,
  onCancel,
}: {
  kinds: ConnectorKind[];
  framework: ConnectorSetting[];
  editing: Connector | undefined;
  disabled: boolean;
  onManaged: (why: string) => void;
  onDone: (saved: Connector) => void;
  onCancel: () => void;
}) {
  const qc = useQueryClient();
  const first = kinds.find((k) => k.kind === editing?.kind) ?? kinds[0];
  const [draft, setDraft] = useState<Draft | null>(() =>
    first === undefined ? null : draftOf(first, editing?.name ?? '', editing),
  );
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [general, setGeneral] = useState<unknown>(null);
  const [tested, setTested] = useState<ConnectorHealth | null>(null);
  const [advanced, setAdvanced] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const kind = kinds.find((k) => k.kind === draft?.kind);

  // Take the keyboard to the field the server complained about.
  useEffect(() => {
    if (problem === null) return;
    if (problem.field === 'max_in_flight' || problem.field === 'timeout_s') setAdvanced(true);
    const target = formRef.current?.querySelector<HTMLElement>(`#${idOf(problem.field)}`);
    target?.focus();
  }, [problem]);

  const known = new Set([
    'name',
    'kind',
    'max_in_flight',
    'timeout_s',
    ...(kind?.settings.map((s) => `settings.${s.name}`) ?? []),
  ]);
  const refused = (err: unknown) => {
    if (err instanceof ApiError && err.status === 409) {
      onManaged(err.message);
    } else if (err instanceof ApiError && err.status === 403) {
      setGeneral(new Error('Only an admin can change connections'));
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
  };

  const test = useMutation({
    mutationFn: (body: TestInput) => connectorApi.test(body),
    onSuccess: setTested,
    onError: refused,
  });
  const save = useMutation({
    mutationFn: ({ name, body }: { name: string; body: ConnectorInput }) =>
      connectorApi.put(name, body),
    onSuccess: (saved) => {
      void qc.invalidateQueries({ queryKey: connectorKeys.list, exact: true });
      void qc.invalidateQueries({ queryKey: statusKeys.status });
      onDone(saved);
    },
    onError: refused,
  });

  if (draft === null || kind === undefined) return <Empty>The catalogue has no kinds.</Empty>;
  const busy = test.isPending || save.isPending;
  const disabled = locked || busy;

  const edit = (change: Partial<Draft>, field?: string) => {
    setDraft((d) => (d === null ? d : { ...d, ...change }));
    setTested(null);
    if (field !== undefined && problem?.field === field) setProblem(null);
  };
  const clear = () => {
    setProblem(null);
    setGeneral(null);
    setTested(null);
  };
  /** What can be told before asking the server; the name only matters for saving. */
  const checked = (forSave: boolean): boolean => {
    const local =
      forSave && !NAME.test(draft.name)
        ? {
            field: 'name',
            message:
              'name must be lower case letters, digits and -, starting with a letter (at most 63)',
          }
        : frameworkProblem(draft);
    if (local === null) return true;
    setProblem(local);
    return false;
  };

  return (
    <form
      ref={formRef}
      className="settings-form connection-form"
      aria-label={editing === undefined ? 'Add a connection' : `Edit ${editing.name}`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        clear();
        if (!checked(true)) return;
        save.mutate({ name: draft.name, body: bodyOf(kind, draft) });
      }}
    >
      <h2>{editing === undefined ? 'Add a connection' : `Edit ${editing.name}`}</h2>
      {editing === undefined && (
        <KindPicker
          kinds={kinds}
          value={draft.kind}
          disabled={disabled}
          onPick={(k) => {
            clear();
            setDraft(draftOf(k, draft.name));
          }}
        />
      )}
      <div className="field">
        <label htmlFor={idOf('name')}>
          Name
          <Required required />
        </label>
        <input
          id={idOf('name')}
          value={draft.name}
          maxLength={63}
          spellCheck={false}
          autoComplete="off"
          readOnly={editing !== undefined}
          disabled={disabled}
          {...invalidIf('name', problem, 'connection-name-hint')}
          onChange={(e) => {
            edit({ name: e.target.value }, 'name');
          }}
        />
        <span className="hint" id="connection-name-hint">
          {editing === undefined
            ? 'Lower case letters, digits and -, starting with a letter.'
            : 'To rename, add a new connection and delete this one.'}
        </span>
        <FieldError field="name" problem={problem} />
      </div>
      <fieldset>
        <legend>
          {kind.title} settings{' '}
          <span className="muted">
            (<span aria-hidden="true">*</span> required)
          </span>
        </legend>
        {kind.settings.map((s) => (
          <SettingField
            key={`${kind.kind}.${s.name}`}
            setting={s}
            draft={draft}
            problem={problem}
            disabled={disabled}
            editing={editing}
            onText={(value) => {
              edit({ text: { ...draft.text, [s.name]: value } }, `settings.${s.name}`);
            }}
            onFlag={(value) => {
              edit({ flags: { ...draft.flags, [s.name]: value } }, `settings.${s.name}`);
            }}
            onSecret={(change) => {
              const sd = draft.secrets[s.name] ?? { mode: 'unset', value: '', file: '', env: '' };
              edit(
                { secrets: { ...draft.secrets, [s.name]: { ...sd, ...change } } },
                `settings.${s.name}`,
              );
            }}
          />
        ))}
      </fieldset>
      <details
        open={advanced}
        onToggle={(e) => {
          setAdvanced(e.currentTarget.open);
        }}
      >
        <summary>Advanced</summary>
        {framework.map((s) => {
          const field = s.name as 'max_in_flight' | 'timeout_s';
          const id = idOf(field);
          return (
            <div className="field" key={s.name}>
              <label htmlFor={id}>{s.name}</label>
              <input
                id={id}
                type="number"
                step={1}
                inputMode="numeric"
                value={draft[field]}
                disabled={disabled}
                {...(s.minimum !== undefined && { min: s.minimum })}
                {...(s.maximum !== undefined && { max: s.maximum })}
                {...(s.default !== undefined && { placeholder: shown(s.default) })}
                {...invalidIf(field, problem, `${id}-hint`)}
                onChange={(e) => {
                  edit({ [field]: e.target.value }, field);
                }}
              />
              <span className="hint" id={`${id}-hint`}>
                {s.description}
                {s.minimum !== undefined && s.maximum !== undefined
                  ? `; ${String(s.minimum)} to ${String(s.maximum)}.`
                  : '.'}
                {defaultText(s)}
              </span>
              <FieldError field={field} problem={problem} />
            </div>
          );
        })}
      </details>
      <div className="actions">
        <button
          type="button"
          // Not disabled while busy, so that the keyboard stays on it.
          disabled={locked}
          aria-disabled={busy}
          onClick={() => {
            if (busy) return;
            clear();
            if (!checked(false)) return;
            test.mutate({
              ...bodyOf(kind, draft),
              ...(NAME.test(draft.name) && { name: draft.name }),
            });
          }}
        >
          {test.isPending ? 'Testing…' : 'Test'}
        </button>
        <button type="submit" disabled={locked} aria-disabled={busy}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="quiet" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
        {tested !== null && (
          <span className={tested.ok ? 'ok' : 'error'} role="status">
            {tested.ok ? '✓ Test passed' : '✗ Test failed'}: {tested.detail}{' '}
            <span className="muted">({tested.duration_ms} ms)</span>
          </span>
        )}
      </div>
      <ErrorNote error={general} />
    </form>
  );
}
