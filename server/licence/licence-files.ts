// Where licence texts live on disk. The licence in force is copied to SVC_DATA/licence.json
// (0600) whatever its source, so a corrupt edit of a mounted file, or a crash between writing
// and recording, falls back to the last verified copy. The revocation list in force is
// SVC_DATA/revocations.json; the bundled list sits beside the bundle.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSecretFile } from '../secrets/index.js';

export const LICENCE_COPY = 'licence.json';
export const REVOCATIONS_COPY = 'revocations.json';
export const CLOCK_FILE = 'licence-clock.json';
/** Documents larger than this are not read at all. */
const MAX_FILE_BYTES = 512 * 1024;

export type FileRead = { text: string } | { missing: true } | { problem: string };

export function readDocumentFile(file: string): FileRead {
  try {
    const size = statSync(file).size;
    if (size > MAX_FILE_BYTES)
      return { problem: `${file} is ${String(size)} bytes, more than a licence document can be` };
    return { text: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    return { problem: `${file} cannot be read (${code ?? 'error'})` };
  }
}

/** Whether something is at `file` (an unreadable file counts: it is there, only refused). */
export function isPresent(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export const writeDocumentCopy = (file: string, text: string): void => {
  writeSecretFile(file, text.endsWith('\n') ? text : `${text}\n`);
};

export const removeDocumentCopy = (file: string): void => {
  rmSync(file, { force: true });
};

/** The revocation list shipped with the build: beside the bundle, or build/ in a checkout. */
export function bundledRevocationsFile(): string | null {
  // From import.meta.url, which the Electron bundle (CommonJS) defines; dirname it does not.
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const candidate of [
    join(here, REVOCATIONS_COPY),
    join(here, '..', '..', 'build', REVOCATIONS_COPY),
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

export const dataFile = (dataDir: string, name: string): string => join(dataDir, name);
