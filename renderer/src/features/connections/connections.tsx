// Connections: the configured connectors with their health, and a form generated from a kind's
// settings in the catalogue (docs/connectors.md). A connection can be tested before it is
// saved; a secret is typed in (sent once as {value}, stored by the service in a 0600 file),
// or named as a file or an environment variable. The list never holds a secret, only its
// reference. A 400 is shown beside the field the server names; a 409 means a file manages
// the connectors, and the forms are disabled.
import { useMe } from '../people/index.js';
import { statusKeys } from '../status/index.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import {
  type Connector,
  type ConnectorHealth,
  type ConnectorInput,
  type ConnectorKind,
  type ConnectorSetting,
  connectorApi,
} from './api.js';
import { ApiError } from '../../shared/api.js';
import { age, Empty, ErrorNote, Time } from '../../shared/parts.js';
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';
import './connections.css';

export const connectorsKey = ['connectors'] as const;
export const catalogueKey = ['connectors', 'catalogue'] as const;

/** While a connector waits for its first health check, the list is asked again this often. */
const CHECKING_REFETCH_MS = 5000;
const NAME = /^[a-z][a-z0-9-]{0,62}$/;

type SecretMode = 'unset' | 'value' | 'file' | 'env';
const SECRET_MODES: readonly [SecretMode, string][] = [
  ['unset', 'Not set'],
  ['value', 'Type it'],
  ['file', 'From a file'],
  ['env', 'From an environment variable'],
];

interface SecretDraft {
  mode: SecretMode;
  value: string;
  file: string;
  env: string;
}

interface Draft {
  name: string;
  kind: string;
  /** Text of string, url, integer and string_list settings (a list one item a line). */
  text: Record<string, string>;
  flags: Record<string, boolean>;
  secrets: Record<string, SecretDraft>;
  max_in_flight: string;
  timeout_s: string;
}

const { idOf, FieldError, invalidIf } = fieldProblems('connection');

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function draftOf(kind: ConnectorKind, name: string, existing?: Connector): Draft {
  const saved = existing?.settings ?? {};
  const draft: Draft = {
    name,
    kind: kind.kind,
    text: {},
    flags: {},
    secrets: {},
    max_in_flight:
      existing?.max_in_flight === null || existing === undefined
        ? ''
        : String(existing.max_in_flight),
    timeout_s: existing === undefined ? '' : String(existing.timeout_s),
  };
  for (const s of kind.settings) {
    const v = saved[s.name];
    if (s.type === 'boolean') {
      draft.flags[s.name] = typeof v === 'boolean' ? v : s.default === true;
    } else if (s.type === 'secret') {
      const ref = isObject(v) ? v : {};
      draft.secrets[s.name] = {
        mode:
          typeof ref['file'] === 'string'
            ? 'file'
            : typeof ref['env'] === 'string'
              ? 'env'
              : s.required
                ? 'value'
                : 'unset',
        value: '',
        file: typeof ref['file'] === 'string' ? ref['file'] : '',
        env: typeof ref['env'] === 'string' ? ref['env'] : '',
      };
    } else if (s.type === 'string_list') {
      draft.text[s.name] = Array.isArray(v) ? v.map(String).join('\n') : '';
    } else {
      draft.text[s.name] = typeof v === 'string' || typeof v === 'number' ? String(v) : '';
    }
  }
  return draft;
}

/** An integer typed in, or the text itself so that the server explains what is wrong. */
const integerOf = (text: string): number | string => {
  const n = Number(text);
  return text.trim() !== '' && Number.isInteger(n) ? n : text;
};

/** The document a draft stands for. Empty optional settings are left out (their default). */
function bodyOf(kind: ConnectorKind, d: Draft): ConnectorInput {
  const settings: Record<string, unknown> = {};
  for (const s of kind.settings) {
    const text = d.text[s.name] ?? '';
    switch (s.type) {
      case 'boolean':
        settings[s.name] = d.flags[s.name] ?? false;
        break;
      case 'secret': {
        const sd = d.secrets[s.name];
        if (sd === undefined || sd.mode === 'unset') break;
        settings[s.name] =
          sd.mode === 'value'
            ? { value: sd.value }
            : sd.mode === 'file'
              ? { file: sd.file.trim() }
              : { env: sd.env.trim() };
        break;
      }
      case 'string_list': {
        const lines = text
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '');
        if (lines.length > 0) settings[s.name] = lines;
        break;
      }
      case 'integer':
        if (text.trim() !== '') settings[s.name] = integerOf(text.trim());
        break;
      default:
        if (text.trim() !== '') settings[s.name] = text.trim();
    }
  }
  const body: ConnectorInput = { kind: kind.kind, settings };
  // Checked beforehand by frameworkProblem: empty or an integer.
  if (d.max_in_flight.trim() !== '') body.max_in_flight = Number(d.max_in_flight);
  if (d.timeout_s.trim() !== '') body.timeout_s = Number(d.timeout_s);
  return body;
}

/** max_in_flight and timeout_s are top-level integers: checked here, bounds by the server. */
function frameworkProblem(d: Draft): FieldProblem | null {
  for (const field of ['max_in_flight', 'timeout_s'] as const) {
    const text = d[field].trim();
    if (text !== '' && !Number.isInteger(Number(text)))
      return { field, message: `${field} must be a whole number, or empty for the default` };
  }
  return null;
}

function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(Date.now());
    }, everyMs);
    return () => {
      clearInterval(timer);
    };
  }, [everyMs]);
  return now;
}

function Required({ required }: { required: boolean }) {
  if (!required) return null;
  return (
    <>
      {' '}
      <span className="required" aria-hidden="true">
        *
      </span>
      <span className="visually-hidden"> (required)</span>
    </>
  );
}

/** A default as text: a string as it is, anything else as JSON. */
const shown = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function defaultText(s: ConnectorSetting): string {
  return s.default === undefined ? '' : ` Default: ${shown(s.default)}.`;
}

function Health({ c, now }: { c: Connector; now: number }) {
  if (c.problem !== null) return <span className="muted">not built</span>;
  const h = c.last_health;
  if (h === null) return <span className="muted">checking…</span>;
  return (
    <span className={h.ok ? 'ok' : 'error'} title={h.at}>
      {h.ok ? '✓' : '✗'} {h.detail} <span className="muted">· {age(h.at, now)} ago</span>
    </span>
  );
}

function SettingField({
  setting,
  draft,
  problem,
  disabled,
  editing,
  onText,
  onFlag,
  onSecret,
}: {
  setting: ConnectorSetting;
  draft: Draft;
  problem: FieldProblem | null;
  disabled: boolean;
  editing: Connector | undefined;
  onText: (value: string) => void;
  onFlag: (value: boolean) => void;
  onSecret: (change: Partial<SecretDraft>) => void;
}) {
  const s = setting;
  const field = `settings.${s.name}`;
  const id = idOf(field);
  const hintId = `${id}-hint`;
  const hint = (
    <span className="hint" id={hintId}>
      {s.description}
      {defaultText(s)}
    </span>
  );
  if (s.type === 'boolean') {
    return (
      <div className="field">
        <label className="check">
          <input
            id={id}
            type="checkbox"
            checked={draft.flags[s.name] ?? false}
            disabled={disabled}
            {...invalidIf(field, problem, hintId)}
            onChange={(e) => {
              onFlag(e.target.checked);
            }}
          />{' '}
          {s.name}
          <Required required={s.required} />
        </label>
        {hint}
        <FieldError field={field} problem={problem} />
      </div>
    );
  }
  if (s.type === 'secret') {
    const sd = draft.secrets[s.name] ?? { mode: 'unset', value: '', file: '', env: '' };
    const saved = editing?.settings[s.name];
    const savedRef = isObject(saved)
      ? typeof saved['file'] === 'string'
        ? `from the file ${saved['file']}`
        : typeof saved['env'] === 'string'
          ? `from the environment variable ${saved['env']}`
          : null
      : null;
    const modes = SECRET_MODES.filter(([m]) => m !== 'unset' || !s.required);
    return (
      <fieldset
        className="secret"
        id={sd.mode === 'unset' ? id : undefined}
        tabIndex={sd.mode === 'unset' ? -1 : undefined}
      >
        <legend>
          {s.name} <span className="muted">(secret)</span>
          <Required required={s.required} />
        </legend>
        {hint}
        {savedRef !== null && (
          <p className="hint">
            Saved: {savedRef}. It is kept unless you change it here; the value is never shown.
          </p>
        )}
        <div className="choices" role="radiogroup" aria-label={`Where ${s.name} comes from`}>
          {modes.map(([mode, label]) => (
            <label key={mode}>
              <input
                type="radio"
                name={`secret-${s.name}`}
                value={mode}
                checked={sd.mode === mode}
                disabled={disabled}
                onChange={() => {
                  onSecret({ mode });
                }}
              />{' '}
              {label}
              <span className="visually-hidden"> for {s.name}</span>
            </label>
          ))}
        </div>
        {sd.mode === 'value' && (
          <label className="field">
            <span>Value of {s.name}</span>
            <input
              id={id}
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={sd.value}
              disabled={disabled}
              {...invalidIf(field, problem, `${id}-value-hint`)}
              onChange={(e) => {
                onSecret({ value: e.target.value });
              }}
            />
            <span className="hint" id={`${id}-value-hint`}>
              Sent once; the service keeps it in a file only it can read and shows only that
              file&apos;s path.
            </span>
          </label>
        )}
        {sd.mode === 'file' && (
          <label className="field">
            <span>File holding {s.name} (absolute path)</span>
            <input
              id={id}
              value={sd.file}
              spellCheck={false}
              placeholder="/run/secrets/…"
              disabled={disabled}
              {...invalidIf(field, problem)}
              onChange={(e) => {
                onSecret({ file: e.target.value });
              }}
            />
          </label>
        )}
        {sd.mode === 'env' && (
          <label className="field">
            <span>Environment variable holding {s.name}</span>
            <input
              id={id}
              value={sd.env}
              spellCheck={false}
              placeholder="VARIABLE_NAME"
              disabled={disabled}
              {...invalidIf(field, problem)}
              onChange={(e) => {
                onSecret({ env: e.target.value });
              }}
            />
          </label>
        )}
        <FieldError field={field} problem={problem} />
      </fieldset>
    );
  }
  const common = {
    id,
    value: draft.text[s.name] ?? '',
    disabled,
    spellCheck: false,
    ...invalidIf(field, problem, hintId),
  };
  return (
    <div className="field">
      <label htmlFor={id}>
        {s.name}
        <Required required={s.required} />
      </label>
      {s.type === 'string_list' ? (
        <textarea
          {...common}
          rows={3}
          onChange={(e) => {
            onText(e.target.value);
          }}
        />
      ) : (
        <input
          {...common}
          type={s.type === 'integer' ? 'number' : s.type === 'url' ? 'url' : 'text'}
          {...(s.type === 'integer' && { step: 1, inputMode: 'numeric' as const })}
          {...(s.minimum !== undefined && { min: s.minimum })}
          {...(s.maximum !== undefined && { max: s.maximum })}
          {...(s.type === 'url' && { placeholder: 'https://…' })}
          {...(s.default !== undefined && s.type !== 'url' && { placeholder: shown(s.default) })}
          onChange={(e) => {
            onText(e.target.value);
          }}
        />
      )}
      {s.type === 'string_list' ? (
        <span className="hint" id={hintId}>
          {s.description} One a line.
        </span>
      ) : (
        hint
      )}
      <FieldError field={field} problem={problem} />
    </div>
  );
}

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

function ConnectionForm({
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
    mutationFn: (body: ConnectorInput & { name?: string }) => connectorApi.test(body),
    onSuccess: setTested,
    onError: refused,
  });
  const save = useMutation({
    mutationFn: ({ name, body }: { name: string; body: ConnectorInput }) =>
      connectorApi.put(name, body),
    onSuccess: (saved) => {
      void qc.invalidateQueries({ queryKey: connectorsKey, exact: true });
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

function DeleteButton({
  name,
  disabled,
  onManaged,
}: {
  name: string;
  disabled: boolean;
  onManaged: (why: string) => void;
}) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => connectorApi.remove(name),
    onSuccess: () => {
      setConfirming(false);
      void qc.invalidateQueries({ queryKey: connectorsKey, exact: true });
      void qc.invalidateQueries({ queryKey: statusKeys.status });
    },
    onError: (err) => {
      setConfirming(false);
      if (err instanceof ApiError && err.status === 409) onManaged(err.message);
    },
  });
  if (!confirming)
    return (
      <>
        <button
          type="button"
          disabled={disabled}
          onClick={() => {
            setConfirming(true);
          }}
        >
          Delete<span className="visually-hidden"> {name}</span>
        </button>
        {remove.isError && !(remove.error instanceof ApiError && remove.error.status === 409) && (
          <ErrorNote error={remove.error} />
        )}
      </>
    );
  return (
    <>
      <button
        type="button"
        className="danger"
        disabled={disabled || remove.isPending}
        autoFocus
        onClick={() => {
          remove.mutate();
        }}
      >
        {remove.isPending ? 'Deleting…' : 'Confirm delete'}
        <span className="visually-hidden"> {name}</span>
      </button>
      <button
        type="button"
        className="quiet"
        onClick={() => {
          setConfirming(false);
        }}
      >
        Cancel<span className="visually-hidden"> deleting {name}</span>
      </button>
    </>
  );
}

function Table({
  connectors,
  canEdit,
  onEdit,
  onManaged,
}: {
  connectors: Connector[];
  canEdit: boolean;
  onEdit: (c: Connector) => void;
  onManaged: (why: string) => void;
}) {
  const now = useNow(5000);
  if (connectors.length === 0)
    return <Empty>No connections yet. Add one below to let the service reach your tools.</Empty>;
  return (
    <table className="table connections" aria-label="connections">
      <thead>
        <tr>
          <th>Name</th>
          <th>Kind</th>
          <th>Health</th>
          <th>Problem</th>
          <th className="num">In flight</th>
          <th className="num">Queued</th>
          <th>Last set</th>
          <th>
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {connectors.map((c) => (
          <tr key={c.name} className={c.problem === null ? undefined : 'has-problem'}>
            <td>
              <strong>{c.name}</strong>
            </td>
            <td>{c.kind}</td>
            <td>
              <Health c={c} now={now} />
            </td>
            <td>
              {c.problem === null ? (
                <span className="muted">—</span>
              ) : (
                <strong className="problem">⚠ {c.problem}</strong>
              )}
            </td>
            <td className="num">{c.in_flight}</td>
            <td className="num">{c.queued}</td>
            <td>
              {c.set_at === null ? (
                '—'
              ) : (
                <>
                  <Time iso={c.set_at} />
                  {c.set_by !== null && <div className="muted">by {c.set_by}</div>}
                </>
              )}
            </td>
            <td className="row-actions">
              <button
                type="button"
                disabled={!canEdit}
                onClick={() => {
                  onEdit(c);
                }}
              >
                Edit<span className="visually-hidden"> {c.name}</span>
              </button>{' '}
              <DeleteButton name={c.name} disabled={!canEdit} onManaged={onManaged} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type Editor = { mode: 'closed' } | { mode: 'add' } | { mode: 'edit'; connector: Connector };

export function ConnectionsPage() {
  const me = useMe();
  const catalogue = useQuery({ queryKey: catalogueKey, queryFn: connectorApi.catalogue });
  const list = useQuery({
    queryKey: connectorsKey,
    queryFn: connectorApi.list,
    // Only while one waits for its first health check ("checking…").
    refetchInterval: (q) =>
      q.state.data?.connectors.some((c) => c.last_health === null && c.problem === null) === true
        ? CHECKING_REFETCH_MS
        : false,
  });
  const [editor, setEditor] = useState<Editor>({ mode: 'closed' });
  const [managed, setManaged] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  // When the form closes, the keyboard goes back to the button that opens it.
  const addRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (editor.mode !== 'closed' || !returnFocus.current) return;
    returnFocus.current = false;
    addRef.current?.focus();
  }, [editor]);

  const role = me.data?.role;
  const isAdmin = role === 'admin' || role === 'owner';
  const file = list.data?.file ?? null;
  const managedWhy =
    file !== null ? `connectors are managed in ${file}` : managed !== null ? managed : null;
  const canEdit = isAdmin && managedWhy === null;

  let banner: ReactNode = null;
  if (managedWhy !== null)
    banner = (
      <p className="banner managed" role="alert">
        A file manages the connectors ({managedWhy}): edit that file and restart the service.
        Adding, changing and deleting connections here is disabled.
      </p>
    );
  else if (me.data !== undefined && !isAdmin)
    banner = (
      <p className="banner" role="note">
        Only an admin can change connections.
      </p>
    );

  return (
    <main className="page connections-page">
      <h1>
        Connections {list.data && <span className="count">{list.data.connectors.length}</span>}
      </h1>
      <p className="hint">
        The tools the service reads from and acts through. Each is checked when it is saved and when
        the service starts; the mode turns <strong>operating</strong> once one answers.
      </p>
      {banner}
      <ErrorNote error={list.error ?? catalogue.error} />
      {list.data && (
        <Table
          connectors={list.data.connectors}
          canEdit={canEdit}
          onEdit={(connector) => {
            setSaved(null);
            setEditor({ mode: 'edit', connector });
          }}
          onManaged={setManaged}
        />
      )}
      {saved !== null && (
        <p className="ok" role="status">
          ✓ Saved {saved}; its health check runs now.
        </p>
      )}
      {editor.mode === 'closed' ? (
        <button
          ref={addRef}
          type="button"
          className="add-connection"
          disabled={!canEdit || catalogue.data === undefined}
          onClick={() => {
            setSaved(null);
            setEditor({ mode: 'add' });
          }}
        >
          Add a connection
        </button>
      ) : (
        catalogue.data && (
          <ConnectionForm
            key={editor.mode === 'edit' ? `edit-${editor.connector.name}` : 'add'}
            kinds={catalogue.data.kinds}
            framework={catalogue.data.framework}
            editing={editor.mode === 'edit' ? editor.connector : undefined}
            disabled={!canEdit}
            onManaged={setManaged}
            onDone={(c) => {
              returnFocus.current = true;
              setSaved(c.name);
              setEditor({ mode: 'closed' });
            }}
            onCancel={() => {
              returnFocus.current = true;
              setEditor({ mode: 'closed' });
            }}
          />
        )
      )}
    </main>
  );
}
