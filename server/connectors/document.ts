// Checking a connector document against its kind, and turning its settings into what a
// client gets (secrets resolved from their references). No I/O but reading secret files.
import { isAbsolute } from 'node:path';
import { InvalidInputError } from '../shared/errors.js';
import { Secret } from '../shared/secret.js';
import { readSecretFile, SecretFileProblem } from '../secrets/index.js';
import type { ConnectorKind, ResolvedSettings, SettingSpec } from './kind.js';
import type { Registry } from './registry.js';
import {
  ENV_PATTERN,
  MAX_IN_FLIGHT_MAX,
  NAME_PATTERN,
  TIMEOUT_DEFAULT_S,
  TIMEOUT_MAX_S,
  type ConnectorDocument,
} from './connectors.schemas.js';
import { isRecord } from '../shared/values.js';

const NAME = new RegExp(NAME_PATTERN);
const ENV = new RegExp(ENV_PATTERN);
const MAX_TEXT = 4096;
const MAX_LIST = 1000;
/** The longest secret a person may type into the console. */
export const MAX_SECRET_BYTES = 64 * 1024;

export const isConnectorName = (name: string): boolean => NAME.test(name);

/** A secret typed in: held only until it is written to its file (or used by a test). */
export interface TypedSecret {
  readonly setting: string;
  readonly value: string;
}

export interface CheckedDocument {
  /** The document; typed-in secrets still appear as {value} until the caller replaces them. */
  readonly document: ConnectorDocument;
  readonly typed: readonly TypedSecret[];
  readonly kind: ConnectorKind;
}

export interface CheckOptions {
  /** Whether {value} secrets are accepted (the API) or refused (the SVC_CONNECTORS file). */
  readonly allowValue: boolean;
  /** Prefix of field names in errors, e.g. `connectors.prom.` for the file. */
  readonly fieldPrefix?: string;
  /** Whether a `name` field may come along (the test body). */
  readonly allowName?: boolean;
  /** Why a {file}/{env} reference of `setting` may not be used (secrets/refs.ts); null: it may. */
  readonly refProblem?: (setting: string, ref: SecretRef) => string | null;
}

/** A secret setting as stored: a reference to a file or a variable. */
export interface SecretRef {
  readonly file?: string;
  readonly env?: string;
}

/**
 * Check a document (a PUT body, a test body or an entry of the file). Throws
 * InvalidInputError with `field` naming the offending field (`settings.url`, `timeout_s`).
 */
export function checkDocument(
  input: unknown,
  registry: Registry,
  options: CheckOptions,
): CheckedDocument {
  const prefix = options.fieldPrefix ?? '';
  const fail = (field: string, why: string): never => {
    const named = `${prefix}${field}`;
    throw new InvalidInputError('invalid_input', `${named} ${why}`, { field: named });
  };
  if (!isRecord(input)) return fail('document', 'must be an object');
  for (const key of Object.keys(input)) {
    const known = ['kind', 'settings', 'max_in_flight', 'timeout_s'];
    if (!known.includes(key) && !(key === 'name' && options.allowName === true))
      fail(key, 'is not a known field');
  }
  const kindName = input['kind'];
  if (kindName === undefined) fail('kind', 'is required');
  if (typeof kindName !== 'string') return fail('kind', 'must be a string');
  const kind = registry.get(kindName);
  if (kind === undefined) {
    return fail('kind', `is not a known kind (known: ${registry.kinds().join(', ') || 'none'})`);
  }
  const bounded = (field: string, max: number): number | undefined => {
    const v = input[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max)
      fail(field, `must be an integer from 1 to ${String(max)}`);
    return v as number;
  };
  const maxInFlight = bounded('max_in_flight', MAX_IN_FLIGHT_MAX);
  const timeoutS = bounded('timeout_s', TIMEOUT_MAX_S);
  const given = input['settings'];
  if (given === undefined) fail('settings', 'is required');
  if (!isRecord(given)) return fail('settings', 'must be an object');

  const specs = new Map(kind.settings.map((s) => [s.name, s]));
  for (const key of Object.keys(given)) {
    if (!specs.has(key)) fail(`settings.${key}`, `is not a setting of kind ${kind.kind}`);
  }
  const settings: Record<string, unknown> = {};
  const typed: TypedSecret[] = [];
  for (const spec of kind.settings) {
    const field = `settings.${spec.name}`;
    const v = given[spec.name];
    if (v === undefined || v === null) {
      if (spec.required && spec.default === undefined) fail(field, 'is required');
      continue;
    }
    const why = typeProblem(spec, v, options.allowValue);
    if (why !== null) fail(field, why);
    if (spec.type === 'secret') {
      const ref = v as Record<string, string>;
      if (ref['value'] !== undefined) {
        typed.push({ setting: spec.name, value: ref['value'] });
        settings[spec.name] = { value: ref['value'] };
      } else {
        const stored: SecretRef =
          ref['file'] !== undefined ? { file: ref['file'] } : { env: ref['env'] ?? '' };
        const refused = options.refProblem?.(spec.name, stored) ?? null;
        if (refused !== null) fail(field, refused);
        settings[spec.name] = stored;
      }
    } else {
      settings[spec.name] = Array.isArray(v) ? [...(v as string[])] : v;
    }
  }
  return {
    kind,
    typed,
    document: {
      kind: kind.kind,
      settings,
      ...(maxInFlight !== undefined && { max_in_flight: maxInFlight }),
      ...(timeoutS !== undefined && { timeout_s: timeoutS }),
    },
  };
}

function typeProblem(spec: SettingSpec, v: unknown, allowValue: boolean): string | null {
  switch (spec.type) {
    case 'string':
      if (typeof v !== 'string') return 'must be a string';
      if (v.length > MAX_TEXT) return `must be at most ${String(MAX_TEXT)} characters`;
      return null;
    case 'url': {
      if (typeof v !== 'string') return 'must be a URL';
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        return 'is not a valid absolute URL';
      }
      if (url.password !== '') return 'must not carry a password; put it in a secret setting';
      return v.length > MAX_TEXT ? `must be at most ${String(MAX_TEXT)} characters` : null;
    }
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) return 'must be an integer';
      if (spec.minimum !== undefined && v < spec.minimum)
        return `must be at least ${String(spec.minimum)}`;
      if (spec.maximum !== undefined && v > spec.maximum)
        return `must be at most ${String(spec.maximum)}`;
      return null;
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be true or false';
    case 'string_list':
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s.length > MAX_TEXT))
        return 'must be a list of strings';
      return v.length > MAX_LIST ? `must have at most ${String(MAX_LIST)} items` : null;
    case 'secret':
      return secretProblem(v, allowValue);
  }
}

function secretProblem(v: unknown, allowValue: boolean): string | null {
  const expected = allowValue
    ? 'must be exactly one of {file: "/absolute/path"}, {env: "VARIABLE"} or {value: "…"}'
    : 'must be exactly one of {file: "/absolute/path"} or {env: "VARIABLE"} (a value is never written here)';
  if (!isRecord(v)) return expected;
  const keys = Object.keys(v);
  if (keys.length !== 1) return expected;
  const [key] = keys;
  const x = v[key ?? ''];
  if (typeof x !== 'string') return expected;
  switch (key) {
    case 'file':
      return isAbsolute(x) && !x.includes('\0') ? null : 'file must be an absolute path';
    case 'env':
      return ENV.test(x) ? null : 'env must be a variable name';
    case 'value':
      if (!allowValue) return expected;
      if (x === '') return 'value must not be empty';
      return Buffer.byteLength(x, 'utf8') > MAX_SECRET_BYTES
        ? `value must be at most ${String(MAX_SECRET_BYTES)} bytes`
        : null;
    default:
      return expected;
  }
}

/** Why a connector cannot be built from its stored document (shown as its `problem`). */
export class ConnectorProblem extends Error {
  override readonly name = 'ConnectorProblem';
}

/** A secret file's value; a file that cannot be used is the connector's problem. */
function secretFile(file: string): Secret {
  try {
    return readSecretFile(file);
  } catch (err) {
    if (err instanceof SecretFileProblem) throw new ConnectorProblem(err.message);
    throw err;
  }
}

/**
 * The settings a client gets: defaults filled in, secrets resolved from {file} or {env}
 * (and {value}, which only a test document holds) when `refProblem` allows them. Throws
 * ConnectorProblem.
 */
export function resolveSettings(
  kind: ConnectorKind,
  document: ConnectorDocument,
  env: Readonly<Record<string, string | undefined>>,
  refProblem?: (setting: string, ref: SecretRef) => string | null,
): ResolvedSettings {
  const resolved: Record<string, ResolvedSettings[string]> = {};
  for (const spec of kind.settings) {
    const v = document.settings[spec.name];
    if (v === undefined) {
      if (spec.default !== undefined) resolved[spec.name] = spec.default;
      else if (spec.required)
        throw new ConnectorProblem(`setting ${spec.name} is required and missing`);
      continue;
    }
    if (spec.type !== 'secret') {
      resolved[spec.name] = v as ResolvedSettings[string];
      continue;
    }
    const ref = v as { file?: string; env?: string; value?: string };
    // A reference saved before its folder stopped being allowed: not built, and says why.
    const refused = ref.value === undefined ? (refProblem?.(spec.name, ref) ?? null) : null;
    if (refused !== null) throw new ConnectorProblem(`setting ${spec.name}: ${refused}`);
    if (ref.file !== undefined) resolved[spec.name] = secretFile(ref.file);
    else if (ref.env !== undefined) {
      const value = env[ref.env];
      if (value === undefined || value === '')
        throw new ConnectorProblem(`environment variable ${ref.env} is not set`);
      resolved[spec.name] = new Secret(value);
    } else if (ref.value !== undefined) resolved[spec.name] = new Secret(ref.value);
    else throw new ConnectorProblem(`setting ${spec.name} is not a secret reference`);
  }
  return resolved;
}

export const timeoutOf = (d: ConnectorDocument): number => d.timeout_s ?? TIMEOUT_DEFAULT_S;
