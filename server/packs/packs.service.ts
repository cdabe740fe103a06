// The loaded set of check packs. Loaded once at start and again on reload(); between the two
// the set never changes, so an investigation sees the same packs from its first step to its
// last.
import type { LoadedPack, RefusedPack } from './pack.types.js';
import { loadPacks, type LoadResult, type PackDir } from './loader.js';
import type { TrustedKey } from './signing.js';

/** What `svc-core packs list` and the API show of a loaded pack. */
export interface PackSummary {
  readonly id: string;
  readonly version: number;
  readonly title: string;
  readonly file: string;
  readonly sha256: string;
  readonly signer: string;
  readonly checks: number;
  readonly causes: number;
  readonly fixes: number;
}

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PacksServiceDeps {
  /** folders in load order: built-in first, then SVC_PACKS (see packDirs) */
  readonly dirs: readonly string[];
  readonly log: Log;
  /** defaults to the keys compiled into the build */
  readonly trusted?: readonly TrustedKey[];
}

export function summarise(p: LoadedPack): PackSummary {
  return {
    id: p.id,
    version: p.version,
    title: p.title,
    file: p.file,
    sha256: p.sha256,
    signer: p.signer,
    checks: p.pack.checks.length,
    causes: p.pack.causes.length,
    fixes: p.pack.fixes.length,
  };
}

export function createPacksService({ dirs, log, trusted }: PacksServiceDeps) {
  const load = (): LoadResult => {
    const result = loadPacks(trusted === undefined ? { dirs } : { dirs, trusted });
    for (const r of result.refused) log.warn({ file: r.file, why: r.why }, 'check pack refused');
    log.info(
      {
        packs: result.loaded.map((p) => `${p.id}@${String(p.version)}`),
        refused: result.refused.length,
        missing: result.dirs.filter((d) => !d.found).map((d) => d.dir),
      },
      'check packs loaded',
    );
    return result;
  };
  let state = load();

  return {
    list: (): PackSummary[] => state.loaded.map(summarise),
    get: (id: string): LoadedPack | null => state.loaded.find((p) => p.id === id) ?? null,
    /** every loaded pack, in load order */
    packs: (): readonly LoadedPack[] => state.loaded,
    refused: (): readonly RefusedPack[] => state.refused,
    dirs: (): readonly PackDir[] => state.dirs,
    /** Reads the folders again; the new set replaces the old one whole. */
    reload(): LoadResult {
      state = load();
      return state;
    },
  };
}
export type PacksService = ReturnType<typeof createPacksService>;
