// One setting of a kind as a form field, made from the catalogue: a checkbox for a boolean, a
// choice of where a secret comes from (typed in, a file, an environment variable), a list one
// item a line, and a text, URL or number input (with the setting's minimum and maximum).
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';
import type { Connector, ConnectorSetting } from './api.js';
import {
  defaultText,
  type Draft,
  isObject,
  SECRET_MODES,
  type SecretDraft,
  shown,
} from './draft.js';

/** The ids, error lines and aria of the connection form's fields (`connection-…`). */
export const connectionFields = fieldProblems('connection');
const { idOf, FieldError, invalidIf } = connectionFields;

export function Required({ required }: { required: boolean }) {
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

export function SettingField({
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
