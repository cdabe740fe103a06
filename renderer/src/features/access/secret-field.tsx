// A secret in a settings form: keep the stored one (shown masked), type a new one (sent once
// as {value}), a file, an environment variable, or none. What is sent is `secretOf`.
import { idOf } from './problems.js';
import type { SecretInput, SecretRef } from '../../shared/api.js';

export type SecretMode = 'keep' | 'value' | 'file' | 'env' | 'none';
export interface SecretDraft {
  mode: SecretMode;
  value: string;
  file: string;
  env: string;
}

export const secretDraft = (ref: SecretRef | SecretInput | null | undefined): SecretDraft => ({
  mode: ref === null || ref === undefined ? 'none' : 'keep',
  value: '',
  file: ref !== null && ref !== undefined && 'file' in ref ? ref.file : '',
  env: ref !== null && ref !== undefined && 'env' in ref ? ref.env : '',
});

/** The secret to send: undefined leaves it out, null is "none". */
export function secretOf(
  d: SecretDraft,
  saved: SecretRef | SecretInput | null | undefined,
): SecretInput | null | undefined {
  switch (d.mode) {
    case 'keep':
      return saved ?? undefined;
    case 'value':
      return { value: d.value };
    case 'file':
      return { file: d.file.trim() };
    case 'env':
      return { env: d.env.trim() };
    case 'none':
      return null;
  }
}

const describeRef = (ref: SecretRef | SecretInput): string =>
  'file' in ref ? `in the file ${ref.file}` : 'env' in ref ? `in $${ref.env}` : 'typed';

export function SecretField({
  form,
  field,
  title,
  saved,
  draft,
  onChange,
  noneLabel,
  inputProps,
}: {
  form: string;
  field: string;
  title: string;
  saved: SecretRef | SecretInput | null | undefined;
  draft: SecretDraft;
  onChange: (d: SecretDraft) => void;
  noneLabel: string;
  inputProps: Record<string, unknown>;
}) {
  const modes: [SecretMode, string][] = [
    ...(saved !== null && saved !== undefined
      ? ([['keep', `Keep the stored one (•••••••• ${describeRef(saved)})`]] as [
          SecretMode,
          string,
        ][])
      : []),
    ['value', 'Type a new one'],
    ['file', 'From a file'],
    ['env', 'From an environment variable'],
    ['none', noneLabel],
  ];
  const id = idOf(form, field);
  return (
    <fieldset className="secret">
      <legend>{title}</legend>
      <div className="choices">
        {modes.map(([m, label]) => (
          <label key={m}>
            <input
              type="radio"
              name={id}
              checked={draft.mode === m}
              onChange={() => {
                onChange({ ...draft, mode: m });
              }}
            />{' '}
            {label}
          </label>
        ))}
      </div>
      {draft.mode === 'value' && (
        <label>
          {title} (typed; stored by the service in an owner-only file)
          <input
            {...inputProps}
            type="password"
            autoComplete="new-password"
            value={draft.value}
            onChange={(e) => {
              onChange({ ...draft, value: e.target.value });
            }}
          />
        </label>
      )}
      {draft.mode === 'file' && (
        <label>
          File holding the {title.toLowerCase()} (absolute path)
          <input
            {...inputProps}
            value={draft.file}
            onChange={(e) => {
              onChange({ ...draft, file: e.target.value });
            }}
          />
        </label>
      )}
      {draft.mode === 'env' && (
        <label>
          Environment variable holding the {title.toLowerCase()}
          <input
            {...inputProps}
            value={draft.env}
            onChange={(e) => {
              onChange({ ...draft, env: e.target.value });
            }}
          />
        </label>
      )}
    </fieldset>
  );
}
