// The newest seal kept outside the database, and the checks a start makes against it and
// against the pinned install key. A log cannot prove its own completeness: a deleted sealed
// tail or an older database file restored is caught only against a checkpoint held
// elsewhere. The file beside the database catches both at the next start (the syslog copy
// of every seal catches a folder restored whole); the install key's fingerprint, pinned by
// the first event, catches a swapped key whose owner re-sealed the segments.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { INSTALL_KEY_FILE } from './install-key.js';
import {
  checkCheckpoint,
  pinnedKeyFailure,
  type VerifyDeps,
  type VerifyFailure,
} from './verify.js';

export const CHECKPOINT_FILE = 'ledger-checkpoint.txt';

export const checkpointFileOf = (dataDir: string): string => join(dataDir, CHECKPOINT_FILE);

/** The saved checkpoint's text; null when there is none. */
export function readSavedCheckpoint(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`cannot read the saved ledger checkpoint ${file}: ${(err as Error).message}`);
  }
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replace the saved checkpoint, durably: written to a temporary file, synced, renamed over
 * the old one, so a crash leaves the old or the new checkpoint, never half of one. Called
 * only after the seal committed, so the file is never ahead of the database.
 */
export function saveCheckpoint(file: string, note: string): void {
  const tmp = `${file}.${String(process.pid)}.tmp`;
  writeFileSync(tmp, note, { mode: 0o600 });
  fsyncPath(tmp);
  renameSync(tmp, file);
  if (process.platform !== 'win32') fsyncPath(dirname(file));
}

export interface StartCheckDeps extends VerifyDeps {
  readonly keyFingerprint: string;
  readonly dataDir: string;
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * Before the service appends anything: refuse a swapped install key and a database behind its
 * saved checkpoint, each with what to do. A folder without the file (first start after an
 * upgrade) gets it from the newest seal in the database.
 */
export function checkLedgerAtStart(deps: StartCheckDeps): void {
  const file = checkpointFileOf(deps.dataDir);
  const swapped = pinnedKeyFailure(deps);
  if (swapped !== null) {
    throw new Error(
      `the install key ${join(deps.dataDir, INSTALL_KEY_FILE)} has fingerprint ${deps.keyFingerprint}, but this install's ledger pins ${swapped.pinned} (system.installed at seq ${String(swapped.seq)}): the key was replaced. Restore the original key file; check the ledger with: svc-core ledger-verify --checkpoint FILE, FILE a checkpoint saved elsewhere (the syslog copy of a ledger.sealed event)`,
    );
  }
  const saved = readSavedCheckpoint(file);
  if (saved === null) {
    const last = deps.store.lastSegment();
    if (last !== null) {
      saveCheckpoint(file, last.checkpoint);
      deps.log.warn(
        { file, segment: last.segment },
        'no saved ledger checkpoint beside the database: written from the newest seal',
      );
    }
    return;
  }
  const failure = savedCheckpointFailure(deps, file, saved, deps.store.head().seq);
  if (failure !== null) {
    throw new Error(
      `the ledger does not match ${failure.message}. Nothing was changed; check it with: svc-core ledger-verify --checkpoint ${file}`,
    );
  }
}

/**
 * The checkpoint saved in `file` (its text, `saved`) against the log whose head is `headSeq`:
 * null when the log still holds it, else the failure, its message naming the file.
 */
export function savedCheckpointFailure(
  deps: Parameters<typeof checkCheckpoint>[0],
  file: string,
  saved: string,
  headSeq: number,
): VerifyFailure | null {
  const failure = checkCheckpoint(deps, saved, headSeq);
  return failure === null
    ? null
    : { ...failure, message: `the checkpoint saved in ${file}: ${failure.message}` };
}
