// The mail settings document: SMTP (starttls, ssl or none) or a JSON mail API. Secrets are
// references ({file} or {env}); a typed-in {value} is written to a 0600 file under the data
// folder and replaced by a {file} reference before anything is stored or recorded.
import { isAbsolute } from 'node:path';
import { InvalidInputError } from '../shared/errors.js';
import { isRecord } from '../shared/values.js';

export const MailTransport = { Smtp: 'smtp', Api: 'api' } as const;
export type MailTransport = (typeof MailTransport)[keyof typeof MailTransport];

export const SmtpSecurity = { StartTls: 'starttls', Ssl: 'ssl', None: 'none' } as const;
export type SmtpSecurity = (typeof SmtpSecurity)[keyof typeof SmtpSecurity];

export type SecretRef = { readonly file: string } | { readonly env: string };

export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  readonly security: SmtpSecurity;
  readonly username?: string;
  readonly password?: SecretRef;
  readonly from: string;
  readonly ca_file?: string;
}

export interface ApiSettings {
  readonly url: string;
  readonly token: SecretRef;
  readonly from: string;
}

export interface MailSettings {
  readonly transport: MailTransport;
  readonly smtp?: SmtpSettings;
  readonly api?: ApiSettings;
  /** Seconds every send may take, connecting included (default 15). */
  readonly timeout_s: number;
}

/** A typed-in secret found in a PUT body: where it goes and what it is. */
export interface TypedSecret {
  readonly setting: 'smtp.password' | 'api.token';
  readonly value: string;
}

export const DEFAULT_TIMEOUT_S = 15;
const MAX_TEXT = 512;
const MAX_SECRET_BYTES = 4096;
const ENV = /^[A-Za-z_][A-Za-z0-9_]*$/;
// One address, as mail headers carry it: "Name <a@b>" or a@b.
const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;
const FROM = /^(?:[^<>\r\n]{0,200}<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

const fail = (field: string, why: string): never => {
  throw new InvalidInputError('invalid_input', `${field} ${why}`, { field });
};

export const isAddress = (s: string): boolean => s.length <= 320 && ADDRESS.test(s);

function only(given: Record<string, unknown>, prefix: string, keys: readonly string[]): void {
  for (const k of Object.keys(given)) {
    if (!keys.includes(k)) fail(`${prefix}${k}`, 'is not a known field');
  }
}

function text(v: unknown, field: string, required: boolean): string | undefined {
  if (v === undefined || v === null) {
    if (required) fail(field, 'is required');
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '') return fail(field, 'must be a non-empty string');
  if (v.length > MAX_TEXT) fail(field, `must be at most ${String(MAX_TEXT)} characters`);
  if (/[\r\n\0]/.test(v)) fail(field, 'must be one line');
  return v.trim();
}

function secret(
  v: unknown,
  field: TypedSecret['setting'],
  typed: TypedSecret[],
  fileFor: (setting: TypedSecret['setting']) => string,
): SecretRef {
  const expected =
    'must be exactly one of {file: "/absolute/path"}, {env: "VARIABLE"} or {value: "…"}';
  if (!isRecord(v)) return fail(field, expected);
  const keys = Object.keys(v);
  const [key] = keys;
  const x = v[key ?? ''];
  if (keys.length !== 1 || typeof x !== 'string') return fail(field, expected);
  switch (key) {
    case 'file':
      if (!isAbsolute(x) || x.includes('\0')) fail(field, 'file must be an absolute path');
      return { file: x };
    case 'env':
      if (!ENV.test(x)) fail(field, 'env must be a variable name');
      return { env: x };
    case 'value':
      if (x === '') fail(field, 'value must not be empty');
      if (Buffer.byteLength(x, 'utf8') > MAX_SECRET_BYTES)
        fail(field, `value must be at most ${String(MAX_SECRET_BYTES)} bytes`);
      typed.push({ setting: field, value: x });
      return { file: fileFor(field) };
    default:
      return fail(field, expected);
  }
}

/**
 * Check a PUT body; answers the document to store (references only) and the typed-in
 * secrets to write. Throws InvalidInputError naming the field.
 */
export function parseMailSettings(
  given: unknown,
  fileFor: (setting: TypedSecret['setting']) => string,
): { settings: MailSettings; typed: TypedSecret[] } {
  if (!isRecord(given)) return fail('body', 'must be an object');
  only(given, '', ['transport', 'smtp', 'api', 'timeout_s']);
  const transport = given['transport'];
  if (transport !== 'smtp' && transport !== 'api') return fail('transport', 'must be smtp or api');
  const typed: TypedSecret[] = [];
  let timeoutS = DEFAULT_TIMEOUT_S;
  if (given['timeout_s'] !== undefined) {
    const t = given['timeout_s'];
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > 120)
      fail('timeout_s', 'must be an integer from 1 to 120');
    timeoutS = t as number;
  }
  if (transport === 'smtp') {
    const s = given['smtp'];
    if (!isRecord(s)) return fail('smtp', 'is required when transport is smtp');
    only(s, 'smtp.', ['host', 'port', 'security', 'username', 'password', 'from', 'ca_file']);
    const host = text(s['host'], 'smtp.host', true) ?? '';
    if (!/^[A-Za-z0-9.:[\]_-]+$/.test(host)) fail('smtp.host', 'must be a host name or address');
    const port = s['port'];
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
      fail('smtp.port', 'must be an integer from 1 to 65535');
    const security = s['security'];
    if (security !== 'starttls' && security !== 'ssl' && security !== 'none')
      fail('smtp.security', 'must be starttls, ssl or none');
    const from = text(s['from'], 'smtp.from', true) ?? '';
    if (!FROM.test(from)) fail('smtp.from', 'must be an e-mail address');
    const username = text(s['username'], 'smtp.username', false);
    const password =
      s['password'] === undefined || s['password'] === null
        ? undefined
        : secret(s['password'], 'smtp.password', typed, fileFor);
    if (password !== undefined && username === undefined)
      fail('smtp.username', 'is required with a password');
    if (password !== undefined && security === 'none')
      fail('smtp.security', 'must be starttls or ssl when a password is sent');
    const caFile = text(s['ca_file'], 'smtp.ca_file', false);
    if (caFile !== undefined && !isAbsolute(caFile))
      fail('smtp.ca_file', 'must be an absolute path');
    return {
      typed,
      settings: {
        transport,
        timeout_s: timeoutS,
        smtp: {
          host,
          port: port as number,
          security: security as SmtpSecurity,
          from,
          ...(username !== undefined && { username }),
          ...(password !== undefined && { password }),
          ...(caFile !== undefined && { ca_file: caFile }),
        },
      },
    };
  }
  const a = given['api'];
  if (!isRecord(a)) return fail('api', 'is required when transport is api');
  only(a, 'api.', ['url', 'token', 'from']);
  const url = text(a['url'], 'api.url', true) ?? '';
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    fail('api.url', 'is not a valid absolute URL');
  }
  if (parsed !== null && parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    fail('api.url', 'must be http or https');
  if (parsed !== null && (parsed.password !== '' || parsed.username !== ''))
    fail('api.url', 'must not carry credentials; put the token in api.token');
  const token = secret(a['token'], 'api.token', typed, fileFor);
  const from = text(a['from'], 'api.from', true) ?? '';
  if (!FROM.test(from)) fail('api.from', 'must be an e-mail address');
  return { typed, settings: { transport, timeout_s: timeoutS, api: { url, token, from } } };
}

/** The document as GET shows it: references are not secrets, but only their kind and name show. */
export function maskSettings(s: MailSettings): MailSettings {
  const mask = (r: SecretRef): SecretRef => ('file' in r ? { file: r.file } : { env: r.env });
  return {
    transport: s.transport,
    timeout_s: s.timeout_s,
    ...(s.smtp && {
      smtp: { ...s.smtp, ...(s.smtp.password && { password: mask(s.smtp.password) }) },
    }),
    ...(s.api && { api: { ...s.api, token: mask(s.api.token) } }),
  };
}
