// Where a connector's typed-in secrets are written (server/secrets/ writes and removes them).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The file a typed-in secret of one connector's setting is written to. */
export const secretFileOf = (secretsDir: string, name: string, setting: string): string =>
  join(secretsDir, `connector-${name}-${setting}`);

/**
 * The file a secret a keychain home carried for one connector's setting is written to: apart
 * from the install's own, so that taking the home's connections never overwrites a secret
 * typed in here.
 */
export const carriedSecretFileOf = (secretsDir: string, name: string, setting: string): string =>
  join(secretsDir, `keychain-connector-${name}-${setting}`);

/** The files a connector's setting may hold its secret in without a SVC_SECRETS_DIRS folder. */
export const ownSecretFiles = (secretsDir: string, name: string, setting: string): string[] => [
  secretFileOf(secretsDir, name, setting),
  carriedSecretFileOf(secretsDir, name, setting),
];

/**
 * The files this service wrote for a connector (its typed-in secrets) that `next` no longer
 * points at: removed after a PUT replaced a typed-in secret by a reference, or after DELETE.
 * Files a person named in a {file} reference are never touched.
 */
export function unusedSecretFiles(
  secretsDir: string,
  name: string,
  previous: Readonly<Record<string, unknown>>,
  next: Readonly<Record<string, unknown>> | null,
): string[] {
  const fileOf = (v: unknown): string | null => {
    const f = (v as { file?: unknown } | null)?.file;
    return typeof f === 'string' ? f : null;
  };
  const kept = new Set(Object.values(next ?? {}).map(fileOf));
  return Object.entries(previous)
    .filter(([setting, v]) => fileOf(v) === secretFileOf(secretsDir, name, setting))
    .map(([, v]) => fileOf(v) ?? '')
    .filter((f) => !kept.has(f));
}

/**
 * The files a keychain home carried here that no connector points at any more (a token the
 * home removed or replaced must not linger on the member's disk).
 */
export function unusedCarriedFiles(
  secretsDir: string,
  documents: readonly { readonly settings: Readonly<Record<string, unknown>> }[],
): string[] {
  const used = new Set(
    documents.flatMap((d) =>
      Object.values(d.settings).map((v) => (v as { file?: unknown } | null)?.file),
    ),
  );
  let names: string[];
  try {
    names = readdirSync(secretsDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith('keychain-connector-'))
    .map((n) => join(secretsDir, n))
    .filter((f) => !used.has(f));
}
