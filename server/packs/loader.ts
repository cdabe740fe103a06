// Loads signed packs from folders: every `*.pack.json`, in folder order and then name order.
// Each file is checked in the order that keeps untrusted bytes furthest from the engine: size,
// JSON, envelope, signature, then the pack schema. A later pack with the same id and a higher
// version replaces an earlier one (SVC_PACKS can update a built-in pack); two packs defining
// the same check id cannot both run, so the later is refused.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Value } from 'typebox/value';
import { canonicalJson } from '../shared/canonical-json.js';
import { describeProblems, SignedPackEnvelope, validatePack } from './pack.schema.js';
import type { LoadedPack, RefusedPack } from './pack.types.js';
import { verifyPack, type TrustedKey } from './signing.js';
import { TRUSTED_PACK_KEYS } from './trust.js';

/** A pack is a few hundred lines of JSON; anything this large is not one. */
export const MAX_PACK_BYTES = 1024 * 1024;
export const PACK_SUFFIX = '.pack.json';

export interface PackDir {
  readonly dir: string;
  /** false: the folder does not exist, which is fine (no packs there) */
  readonly found: boolean;
  /** how many `*.pack.json` files it holds */
  readonly files: number;
}

export interface LoadResult {
  readonly loaded: readonly LoadedPack[];
  readonly refused: readonly RefusedPack[];
  /** earlier files replaced by a higher version of the same pack */
  readonly superseded: readonly { readonly file: string; readonly by: string }[];
  readonly dirs: readonly PackDir[];
}

export interface LoadOptions {
  readonly dirs: readonly string[];
  /** defaults to the keys compiled into the build */
  readonly trusted?: readonly TrustedKey[];
  readonly maxBytes?: number;
}

/** The built-in signed packs: beside the bundle (dist/packs) or in the checkout. */
export function builtInPacksDir(): string | null {
  for (const rel of ['./packs/', '../build/packs/signed/', '../../build/packs/signed/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir) && statSync(dir).isDirectory()) return dir;
  }
  return null;
}

/** The folders the service loads, in order: the built-in packs, then SVC_PACKS. */
export function packDirs(configured: string): string[] {
  const builtIn = builtInPacksDir();
  return builtIn === null ? [configured] : [builtIn, configured];
}

const errnoOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? '';

type Candidate = { readonly ok: true; readonly pack: LoadedPack } | RefusedPack;

/** Reads and checks one file; never throws. */
function readPack(file: string, trusted: readonly TrustedKey[], maxBytes: number): Candidate {
  let bytes: Buffer;
  try {
    const st = statSync(file);
    if (!st.isFile()) return { file, why: 'not a regular file' };
    if (st.size > maxBytes) {
      return { file, why: `${String(st.size)} bytes, over the ${String(maxBytes)} byte limit` };
    }
    bytes = readFileSync(file);
  } catch (err) {
    return { file, why: `cannot be read: ${(err as Error).message}` };
  }
  if (bytes.length > maxBytes) {
    return { file, why: `${String(bytes.length)} bytes, over the ${String(maxBytes)} byte limit` };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    return { file, why: `not JSON: ${(err as Error).message}` };
  }
  if (!Value.Check(SignedPackEnvelope, doc)) {
    return {
      file,
      why: 'not a signed pack: expected {pack, signature: {alg: "ed25519", key, sig}} (sign it with npm run packs)',
      unsigned: true,
    };
  }
  const verified = verifyPack(doc, trusted);
  if (!verified.ok) return { file, why: verified.why, unsigned: true };
  const valid = validatePack(doc.pack);
  if (!valid.ok) return { file, why: `not a valid pack: ${describeProblems(valid.problems)}` };
  const { pack } = valid;
  return {
    ok: true,
    pack: {
      id: pack.id,
      version: pack.version,
      title: pack.title,
      file,
      sha256: createHash('sha256').update(canonicalJson(pack), 'utf8').digest('hex'),
      signer: verified.signer.id,
      pack,
    },
  };
}

/** The `*.pack.json` files of one folder, sorted; null when the folder does not exist. */
function listDir(dir: string, refused: RefusedPack[]): string[] | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return null;
    refused.push({
      file: dir,
      why:
        errnoOf(err) === 'ENOTDIR'
          ? 'is not a folder (SVC_PACKS names a folder of *.pack.json files)'
          : `the folder cannot be read: ${(err as Error).message}`,
    });
    return [];
  }
  return names
    .filter((n) => n.endsWith(PACK_SUFFIX))
    .sort()
    .map((n) => join(dir, n));
}

export function loadPacks(options: LoadOptions): LoadResult {
  const trusted = options.trusted ?? TRUSTED_PACK_KEYS;
  const maxBytes = options.maxBytes ?? MAX_PACK_BYTES;
  const refused: RefusedPack[] = [];
  const superseded: { file: string; by: string }[] = [];
  const dirs: PackDir[] = [];
  // Map order is first-seen order; a replacement keeps the slot of the pack it replaces.
  const byId = new Map<string, LoadedPack>();

  for (const dir of options.dirs) {
    const files = listDir(dir, refused);
    dirs.push({ dir, found: files !== null, files: files?.length ?? 0 });
    for (const file of files ?? []) {
      const c = readPack(file, trusted, maxBytes);
      if (!('ok' in c)) {
        refused.push(c);
        continue;
      }
      const next = c.pack;
      const prev = byId.get(next.id);
      if (prev === undefined) byId.set(next.id, next);
      else if (next.version > prev.version) {
        superseded.push({ file: prev.file, by: next.file });
        byId.set(next.id, next);
      } else if (next.version === prev.version && next.sha256 === prev.sha256) {
        // The same pack twice (a copy of a built-in pack in SVC_PACKS): nothing to choose.
        superseded.push({ file: next.file, by: prev.file });
      } else {
        refused.push({
          file: next.file,
          why: `pack ${next.id} version ${String(next.version)} is not newer than version ${String(prev.version)} from ${prev.file}`,
        });
      }
    }
  }

  const loaded: LoadedPack[] = [];
  const checkOwner = new Map<string, LoadedPack>();
  for (const p of byId.values()) {
    const clash = p.pack.checks.find((c) => checkOwner.has(c.id));
    if (clash !== undefined) {
      const owner = checkOwner.get(clash.id);
      refused.push({
        file: p.file,
        why: `check ${clash.id} is already defined by pack ${owner?.id ?? '?'} (${owner?.file ?? '?'})`,
      });
      continue;
    }
    for (const c of p.pack.checks) checkOwner.set(c.id, p);
    loaded.push(p);
  }
  return { loaded, refused, superseded, dirs };
}
