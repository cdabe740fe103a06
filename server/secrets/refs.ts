// What a connector's secret reference may name. An admin chooses both the reference and the
// URL the secret is sent to, so a reference to the service's own files (the data folder's
// admin token and install key, a _FILE secret) or to an SVC_* variable would hand the
// owner's credentials to whoever the admin likes. A {file} must lie under a folder the
// operator declared (SVC_SECRETS_DIRS), links followed; the one exception is the file this
// service wrote for that very setting of that connector (a typed-in secret).
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

export interface SecretRefRules {
  /** SVC_SECRETS_DIRS: folders whose files references may name. */
  readonly dirs: readonly string[];
  /** The service's own files and folders (data folder, _FILE secrets, …): never named. */
  readonly ownPaths: readonly string[];
}

/** No folder declared and nothing of the service's: only typed-in secrets and variables. */
export const NO_SECRET_DIRS: SecretRefRules = { dirs: [], ownPaths: [] };

const within = (folder: string, path: string): boolean => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The path with its links resolved; a missing file: its folder's real path and its name. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return resolve(realpathSync(dirname(path)), relative(dirname(path), path));
    } catch {
      return path;
    }
  }
}

/**
 * Why `ref` may not be used, or null when it may. `ownFile` is the file this service writes
 * for the setting's typed-in secret (secretFileOf), which is always allowed.
 */
export function secretRefProblem(
  ref: { readonly file?: string | undefined; readonly env?: string | undefined },
  ownFile: string | readonly string[],
  rules: SecretRefRules,
): string | null {
  if (ref.env !== undefined) {
    return /^SVC_/i.test(ref.env)
      ? `env ${ref.env} is one of the service's own variables; a reference may not name SVC_* variables`
      : null;
  }
  if (ref.file === undefined) return null;
  const given = resolve(ref.file);
  const owned = typeof ownFile === 'string' ? [ownFile] : ownFile;
  if (owned.some((f) => given === resolve(f))) return null;
  const path = real(given);
  const own = rules.ownPaths.find((p) => within(p, given) || within(real(p), path));
  if (own !== undefined) {
    return `file ${ref.file} is one of the service's own files (${own}); a reference may name only files under SVC_SECRETS_DIRS`;
  }
  const declared = rules.dirs.some((d) => within(d, given) && within(real(d), path));
  if (!declared) {
    const dirs = rules.dirs.length === 0 ? 'none declared' : rules.dirs.join(', ');
    return `file ${ref.file} is not under a secrets folder (SVC_SECRETS_DIRS: ${dirs})`;
  }
  return null;
}
