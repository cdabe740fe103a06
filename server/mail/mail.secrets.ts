// Secrets of the mail settings: typed-in values go to owner-only files under
// SVC_DATA/secrets/ (written like connectors' secrets), references are read when sending.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecretFile } from '../connectors/secrets.js';
import { Secret } from '../shared/secret.js';
import type { SecretRef, TypedSecret } from './mail.settings.js';

export { writeSecretFile };

/** The file a typed-in mail secret is written to. */
export const mailSecretFile = (secretsDir: string, setting: TypedSecret['setting']): string =>
  join(secretsDir, `mail-${setting.replace('.', '-')}`);

/** A reference's value; throws an Error naming the file or variable (never the value). */
export function readSecretRef(ref: SecretRef, env: Readonly<Record<string, string | undefined>>) {
  if ('env' in ref) {
    const v = env[ref.env];
    if (v === undefined || v === '') throw new Error(`environment variable ${ref.env} is not set`);
    return new Secret(v);
  }
  let text: string;
  try {
    text = readFileSync(ref.file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(
      code === 'ENOENT'
        ? `secret file ${ref.file} is missing`
        : `secret file ${ref.file} cannot be read (${code})`,
    );
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new Error(`secret file ${ref.file} is empty`);
  return new Secret(value);
}
