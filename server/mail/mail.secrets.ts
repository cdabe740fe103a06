// Secrets of the mail settings: typed-in values go to owner-only files under
// SVC_DATA/secrets/ (server/secrets/ writes them), references are read when sending.
import { join } from 'node:path';
import { readSecretFile } from '../secrets/index.js';
import { Secret } from '../shared/secret.js';
import type { SecretRef, TypedSecret } from './mail.settings.js';

/** The file a typed-in mail secret is written to. */
export const mailSecretFile = (secretsDir: string, setting: TypedSecret['setting']): string =>
  join(secretsDir, `mail-${setting.replace('.', '-')}`);

/** The file a mail secret a keychain home carried is written to (never the install's own). */
export const carriedMailSecretFile = (
  secretsDir: string,
  setting: TypedSecret['setting'],
): string => join(secretsDir, `keychain-mail-${setting.replace('.', '-')}`);

/**
 * A reference's value, read as connectors read theirs; throws an Error naming the file or
 * variable (never the value).
 */
export function readSecretRef(ref: SecretRef, env: Readonly<Record<string, string | undefined>>) {
  if ('env' in ref) {
    const v = env[ref.env];
    if (v === undefined || v === '') throw new Error(`environment variable ${ref.env} is not set`);
    return new Secret(v);
  }
  return readSecretFile(ref.file);
}
