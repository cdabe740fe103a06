// A connection form's draft: the text a person types for each setting of a kind, made from a
// saved connector and turned back into the document PUT and test take. Secrets become
// references ({file}, {env}) or a value sent once; empty optional settings are left out.
import type { FieldProblem } from '../../shared/field-problems.js';
import type { Connector, ConnectorInput, ConnectorKind, ConnectorSetting } from './api.js';

export const NAME = /^[a-z][a-z0-9-]{0,62}$/;

export type SecretMode = 'unset' | 'value' | 'file' | 'env';
export const SECRET_MODES: readonly [SecretMode, string][] = [
  ['unset', 'Not set'],
  ['value', 'Type it'],
  ['file', 'From a file'],
  ['env', 'From an environment variable'],
];

export interface SecretDraft {
  mode: SecretMode;
  value: string;
  file: string;
  env: string;
}

export interface Draft {
  name: string;
  kind: string;
  /** Text of string, url, integer and string_list settings (a list one item a line). */
  text: Record<string, string>;
  flags: Record<string, boolean>;
  secrets: Record<string, SecretDraft>;
  max_in_flight: string;
  timeout_s: string;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export function draftOf(kind: ConnectorKind, name: string, existing?: Connector): Draft {
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
export function bodyOf(kind: ConnectorKind, d: Draft): ConnectorInput {
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
export function frameworkProblem(d: Draft): FieldProblem | null {
  for (const field of ['max_in_flight', 'timeout_s'] as const) {
    const text = d[field].trim();
    if (text !== '' && !Number.isInteger(Number(text)))
      return { field, message: `${field} must be a whole number, or empty for the default` };
  }
  return null;
}

/** A default as text: a string as it is, anything else as JSON. */
export const shown = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

export function defaultText(s: ConnectorSetting): string {
  return s.default === undefined ? '' : ` Default: ${shown(s.default)}.`;
}
