// Secrets typed into the console: written to owner-only files under SVC_DATA/secrets/, and
// the connector's setting points at the file. The value never goes anywhere else.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** The file a typed-in secret of one connector's setting is written to. */
export const secretFileOf = (secretsDir: string, name: string, setting: string): string =>
  join(secretsDir, `connector-${name}-${setting}`);

/** The folder, created owner-only (0700) when missing and tightened when it exists. */
export function ensureSecretsDir(secretsDir: string): void {
  mkdirSync(secretsDir, { recursive: true, mode: 0o700 });
  chmodSync(secretsDir, 0o700);
}

/** Write atomically (temporary file, fsync, rename), mode 0600 from the first byte. */
export function writeSecretFile(file: string, value: string): void {
  ensureSecretsDir(dirname(file));
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, value);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  try {
    const dirFd = openSync(dirname(file), 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Not every file system lets a folder be synced; the rename is still atomic.
  }
}

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

export function removeFiles(files: readonly string[]): void {
  for (const f of files) rmSync(f, { force: true });
}
