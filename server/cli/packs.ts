// svc-core packs list: the check packs this install would load (built-in, then SVC_PACKS),
// read straight from the folders, so it works with the service stopped and without a data
// folder, and whether the licence opens each. Exit 1 when any file is refused: its checks
// would not run (a pack the licence leaves closed is not an error).
import type { Config } from '../config.js';
import {
  loadPacks,
  packDirs,
  summarise,
  TRUSTED_PACK_KEYS,
  type LoadResult,
  type PackGate,
  type TrustedKey,
} from '../packs/index.js';

type Out = { log(line: string): void; error(line: string): void };

export interface PacksCliDeps {
  readonly config: () => Config;
  /** defaults to packDirs(SVC_PACKS) */
  readonly dirs?: () => readonly string[];
  /** defaults to the keys compiled into the build */
  readonly trusted?: readonly TrustedKey[];
  /** whether the licence in force opens a pack */
  readonly opens: PackGate;
}

export const PACKS_USAGE = `  packs list [--json]             the check packs (built-in and SVC_PACKS) with their
                                  signer and whether the licence opens each, and each
                                  refused file with why; non-zero if any file is refused`;

const plural = (n: number, one: string): string => `${String(n)} ${one}${n === 1 ? '' : 's'}`;

const openedText = (o: { opened: boolean; why?: string }): string =>
  o.opened ? 'opened: yes' : `opened: no (why: ${o.why ?? 'closed'})`;

function lines(result: LoadResult, trusted: readonly TrustedKey[], opens: PackGate): string[] {
  const nameOf = (id: string): string => {
    const key = trusted.find((k) => k.id === id);
    return key === undefined ? id : `${key.name} (${id.slice(0, 16)}…)`;
  };
  const out: string[] = [];
  for (const d of result.dirs) {
    out.push(`folder ${d.dir}: ${d.found ? plural(d.files, 'pack file') : 'missing'}`);
  }
  if (result.loaded.length === 0) out.push('no packs loaded');
  for (const p of result.loaded) {
    const s = summarise(p);
    out.push(
      `${s.id} v${String(s.version)}  ${s.title}  ${plural(s.checks, 'check')}, ${plural(s.causes, 'cause')}, ${plural(s.fixes, 'fix')}; signed by ${nameOf(s.signer)}; ${s.file}; ${openedText(opens(s.id))}`,
    );
  }
  for (const s of result.superseded) out.push(`superseded ${s.file} by ${s.by}`);
  for (const r of result.refused)
    out.push(
      `refused ${r.file}: ${r.why}${r.unsigned === true ? '; opened: no (why: unsigned)' : ''}`,
    );
  return out;
}

export async function packsCommand(
  positionals: readonly string[],
  values: { json: boolean },
  out: Out,
  deps: PacksCliDeps,
): Promise<number> {
  const [sub, ...rest] = positionals;
  if (sub !== 'list' || rest.length > 0) {
    out.error(`svc-core packs: use list\n${PACKS_USAGE}`);
    return 2;
  }
  const trusted = deps.trusted ?? TRUSTED_PACK_KEYS;
  const dirs = deps.dirs?.() ?? packDirs(deps.config().files.packs);
  const result = loadPacks({ dirs, trusted });
  if (values.json) {
    out.log(
      JSON.stringify(
        {
          packs: result.loaded.map((p) => {
            const o = deps.opens(p.id);
            return { ...summarise(p), opened: o.opened, why: o.opened ? null : (o.why ?? null) };
          }),
          refused: result.refused,
          superseded: result.superseded,
          dirs: result.dirs,
        },
        null,
        2,
      ),
    );
  } else for (const line of lines(result, trusted, deps.opens)) out.log(line);
  return result.refused.length > 0 ? 1 : 0;
}
