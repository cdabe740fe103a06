// SVC_ML_DIR: the folder of ML artefacts. Each file there is either used (verified, of a kind
// this version uses, with a body that checks) or refused with the reason, which the doctor
// shows. Nothing else is read: no artefact is ever used on trust, and a refused file changes
// nothing. The folder is read again only when a file in it changed.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { signerKey, verifyArtefact, type SignerKey } from './artefact.js';
import { relationsOf, type RelationLink } from './relations.js';

/** A bigger file is refused unread (artefacts are summaries, not training data). */
export const ML_FILE_MAX_BYTES = 8 * 1024 * 1024;
/** The kinds this version uses; any other is refused, so nothing is used by mistake. */
export const ARTEFACT_KINDS = ['relations'] as const;

export interface UsedArtefact {
  readonly file: string;
  readonly kind: (typeof ARTEFACT_KINDS)[number];
  readonly name: string;
  readonly made: string | null;
  readonly by: string | null;
  /** Who signed it, of the keys it needed: `this install`, `SVC_ML_TRUST`. */
  readonly signers: readonly string[];
  readonly relations: readonly RelationLink[];
}

export interface MlReport {
  readonly dir: string;
  /** Whether the folder exists; a missing folder is no artefacts, not a fault. */
  readonly present: boolean;
  /** The SVC_ML_TRUST key id when it is set and readable. */
  readonly trust: string | null;
  /** Why SVC_ML_TRUST cannot be used; then every artefact is refused. */
  readonly trustProblem: string | null;
  readonly used: readonly UsedArtefact[];
  readonly refused: readonly { readonly file: string; readonly why: string }[];
}

/**
 * SVC_ML_TRUST: an Ed25519 public key as PEM text, or the path of a PEM file. A value that is
 * neither is a problem to show, never a reason to accept less.
 */
export function trustKeyOf(value: string | null): SignerKey | null | { problem: string } {
  if (value === null) return null;
  let pem = value;
  if (!value.trimStart().startsWith('-----BEGIN')) {
    try {
      pem = readFileSync(value, 'utf8');
    } catch (err) {
      return {
        problem: `SVC_ML_TRUST is neither a PEM public key nor a readable file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      };
    }
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    return { problem: `SVC_ML_TRUST is not a public key: ${(err as Error).message}` };
  }
  try {
    return signerKey('SVC_ML_TRUST', key);
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

type Entry = { readonly file: string; readonly path: string; readonly stamp: string };

function entriesOf(dir: string): Entry[] | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return names
    .filter((n) => !n.startsWith('.')) // editors' and our own temporary files
    .sort()
    .map((file) => {
      const path = join(dir, file);
      try {
        const s = statSync(path);
        return {
          file,
          path,
          stamp: `${String(s.mtimeMs)}:${String(s.size)}:${String(s.isFile())}`,
        };
      } catch {
        return { file, path, stamp: 'gone' };
      }
    });
}

function judge(
  entry: Entry,
  needed: readonly SignerKey[],
): UsedArtefact | { file: string; why: string } {
  const refuse = (why: string) => ({ file: entry.file, why });
  if (!entry.file.endsWith('.json')) return refuse('not a .json artefact file');
  let text: string;
  try {
    const s = statSync(entry.path);
    if (!s.isFile()) return refuse('not a file');
    if (s.size > ML_FILE_MAX_BYTES)
      return refuse(`${String(s.size)} bytes, more than ${String(ML_FILE_MAX_BYTES)}`);
    text = readFileSync(entry.path, 'utf8');
  } catch (err) {
    return refuse(
      `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('not JSON');
  }
  const verified = verifyArtefact(value, needed);
  if (!verified.ok) return refuse(verified.why);
  const { artefact } = verified;
  if (!(ARTEFACT_KINDS as readonly string[]).includes(artefact.kind))
    return refuse(
      `kind ${artefact.kind} is not one this version uses (${ARTEFACT_KINDS.join(', ')})`,
    );
  const relations = relationsOf(artefact.body);
  if (typeof relations === 'string') return refuse(relations);
  return {
    file: entry.file,
    kind: 'relations',
    name: artefact.name,
    made: artefact.made ?? null,
    by: artefact.by ?? null,
    signers: verified.signers,
    relations,
  };
}

/** Reads and judges every file of `dir` against the keys it needs. */
export function readMlDir(
  dir: string,
  install: SignerKey | null,
  trust: SignerKey | null | { problem: string },
): MlReport {
  const entries = entriesOf(dir);
  const trustProblem = trust !== null && 'problem' in trust ? trust.problem : null;
  const base = {
    dir,
    present: entries !== null,
    trust: trust !== null && !('problem' in trust) ? trust.id : null,
    trustProblem,
  };
  const problem =
    trustProblem ?? (install === null ? 'this install has no key yet to verify with' : null);
  const needed = [install, trust].filter((k): k is SignerKey => k !== null && !('problem' in k));
  const used: UsedArtefact[] = [];
  const refused: { file: string; why: string }[] = [];
  for (const entry of entries ?? []) {
    const judged = problem !== null ? { file: entry.file, why: problem } : judge(entry, needed);
    if ('why' in judged) refused.push(judged);
    else used.push(judged);
  }
  return { ...base, used, refused };
}

export interface MlArtefacts {
  /** The folder as it is now (read again only when a file changed). */
  report(): MlReport;
}

export function createMlArtefacts(deps: {
  readonly dir: string;
  /** This install's Ed25519 public key; null when it has none yet. */
  readonly installKey: () => KeyObject | null;
  /** SVC_ML_TRUST as set. */
  readonly trust: string | null;
}): MlArtefacts {
  const trust = trustKeyOf(deps.trust);
  let cached: { stamp: string; report: MlReport } | null = null;
  return {
    report(): MlReport {
      const entries = entriesOf(deps.dir);
      const stamp = JSON.stringify(entries?.map((e) => [e.file, e.stamp]) ?? null);
      if (cached?.stamp === stamp) return cached.report;
      const key = deps.installKey();
      const install = key === null ? null : signerKey('this install', key);
      cached = { stamp, report: readMlDir(deps.dir, install, trust) };
      return cached.report;
    },
  };
}
