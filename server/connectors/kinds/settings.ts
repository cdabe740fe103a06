// Reading resolved settings with the types a kind declared, and the small helpers the kinds
// share (network error text, bounded bodies). Messages name the setting, never its value
// when the value is a secret.
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { rootCertificates } from 'node:tls';
import { Secret } from '../../shared/secret.js';
import type { ResolvedSettings } from '../kind.js';

export function readString(settings: ResolvedSettings, name: string): string | undefined {
  const value = settings[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`setting ${name} must be a string`);
  return value;
}

export function readUrl(settings: ResolvedSettings, name: string): URL {
  const value = readString(settings, name);
  if (value === undefined) throw new Error(`setting ${name} is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`setting ${name} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`setting ${name} must be an http:// or https:// URL`);
  if (url.username !== '' || url.password !== '')
    throw new Error(`setting ${name} must not carry credentials; use the credential settings`);
  return url;
}

export function readSecret(settings: ResolvedSettings, name: string): Secret | undefined {
  const value = settings[name];
  if (value === undefined) return undefined;
  if (!(value instanceof Secret)) throw new Error(`setting ${name} must be a resolved secret`);
  return value.reveal() === '' ? undefined : value;
}

export function readBoolean(settings: ResolvedSettings, name: string, fallback: boolean): boolean {
  const value = settings[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new Error(`setting ${name} must be true or false`);
  return value;
}

export function readInteger(
  settings: ResolvedSettings,
  name: string,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  const value = settings[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > maximum)
    throw new Error(
      `setting ${name} must be an integer from ${String(minimum)} to ${String(maximum)}`,
    );
  return value;
}

export function readStringList(settings: ResolvedSettings, name: string): readonly string[] {
  const value = settings[name];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new Error(`setting ${name} must be a list of strings`);
  return value;
}

/** The useful part of a network error: undici hides it in `cause` ("fetch failed"). */
export function networkErrorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code !== undefined && !cause.message.includes(code)
      ? `${cause.message} (${code})`
      : cause.message;
  }
  const code = (err as NodeJS.ErrnoException).code;
  return code !== undefined && !err.message.includes(code)
    ? `${err.message} (${code})`
    : err.message;
}

/** Reads a fetch body as text, refusing bodies over `limit` bytes (after decompression). */
export async function readBodyLimited(res: Response, limit: number, what: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  const tooBig = () =>
    new Error(`${what}: response larger than ${String(Math.round(limit / 1e6))} MB refused`);
  if (declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw tooBig();
  }
  if (res.body === null) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooBig();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

export function elapsedMs(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

/**
 * Setting `ca_file`: the system's CAs plus the operator's own (an in-house CA), read once when
 * the connector is built: setting `ca` alone would replace Node's bundle instead of adding to it.
 */
export function readCaFile(settings: ResolvedSettings): string[] | undefined {
  const path = readString(settings, 'ca_file');
  if (path === undefined) return undefined;
  if (!isAbsolute(path)) throw new Error('setting ca_file must be an absolute path');
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `setting ca_file: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`setting ca_file: ${path} holds no PEM certificate`);
  return [...rootCertificates, pem];
}
