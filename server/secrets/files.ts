// Secret files: typed-in secrets (of connectors, mail, single sign-on) are written to
// owner-only files under SVC_DATA/secrets/ and the setting points at the file; a {file}
// reference is read here. The value never goes anywhere else.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { Secret } from '../shared/secret.js';

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

/** Remove files this service wrote (a missing one is fine). */
export function removeFiles(files: readonly string[]): void {
  for (const f of files) rmSync(f, { force: true });
}

/** Why a secret file cannot be used: missing, unreadable or empty (names the file, never a value). */
export class SecretFileProblem extends Error {
  override readonly name = 'SecretFileProblem';
}

/** Read a secret file: its text without one trailing newline. */
export function readSecretFile(file: string): Secret {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SecretFileProblem(`secret file ${file} is missing`);
    throw new SecretFileProblem(`secret file ${file} cannot be read (${code ?? 'error'})`);
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new SecretFileProblem(`secret file ${file} is empty`);
  return new Secret(value);
}
