// The loaded set of check packs. Loaded once at start and again on reload(); between the two
// the set never changes, so an investigation sees the same packs from its first step to its
// last.
import type { LoadedPack, PackGate, RefusedPack } from './pack.types.js';
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
  /** whether the licence opens a pack, asked at each use; every pack is open without it */
  readonly opens?: PackGate;
}

/** A loaded pack the licence does not open, and why. */
export interface ClosedPack {
  readonly id: string;
  readonly version: number;
  readonly file: string;
  readonly why: string;
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

export function createPacksService({ dirs, log, trusted, opens }: PacksServiceDeps) {
  const isOpen = (id: string): boolean => opens === undefined || opens(id).opened;
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
    /** every loaded pack, opened by the licence or not */
    list: (): PackSummary[] => state.loaded.map(summarise),
    /** a loaded pack the licence opens */
    get: (id: string): LoadedPack | null =>
      state.loaded.find((p) => p.id === id && isOpen(p.id)) ?? null,
    /** the loaded packs the licence opens, in load order: what investigations run */
    packs: (): readonly LoadedPack[] => state.loaded.filter((p) => isOpen(p.id)),
    /** the loaded packs the licence does not open, with why */
    closed: (): ClosedPack[] =>
      opens === undefined
        ? []
        : state.loaded.flatMap((p) => {
            const o = opens(p.id);
            return o.opened
              ? []
              : [{ id: p.id, version: p.version, file: p.file, why: o.why ?? 'closed' }];
          }),
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
