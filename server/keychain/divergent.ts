// A home that another install replaced while it still ran (a take-over during a partition,
// or a fork it lost) may have changed parts the new home never saw. Nothing is merged
// (design §2.7 (5)): before the new home's versions replace them, this install's copy of
// every part it carried is written to a file in its data folder, for the operator to
// compare and carry over by hand. The documents hold secrets, so the file is the owner's
// alone (0600), like the database beside it; it never goes into a ledger.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureSecretsDir, writeSecretFile } from '../secrets/index.js';
import type { Clock } from '../shared/clock.js';
import type { KeychainStore, StateRow } from './keychain.store.js';
import { homeCarries, type PartAdapter } from './parts.js';

/** Where the copies go, under the data folder. */
export const DIVERGENT_DIR = join('keychain', 'divergent');

export interface DivergentCopy {
  /** The file's path relative to the data folder. */
  readonly file: string;
  readonly parts: string[];
}

export function createDivergentCopies(deps: {
  readonly dataDir: string;
  readonly store: KeychainStore;
  readonly adapters: readonly PartAdapter[];
  readonly clock: Clock;
}) {
  return {
    /**
     * Write this home's copy of every part it carries, before it steps down to `newHome` at
     * `epoch`. Throws when the file cannot be written (a full disk): the caller's step-down
     * is then not made, and is tried again at the next round, so no change is lost.
     */
    save(st: StateRow, epoch: number, newHome: string): DivergentCopy {
      const carried = homeCarries(st);
      const parts: Record<string, unknown> = {};
      for (const a of deps.adapters.filter((x) => carried.includes(x.part))) {
        const published = deps.store.part(a.part);
        parts[a.part] = {
          version: published?.version ?? null,
          epoch: published?.epoch ?? null,
          document: a.document(),
        };
      }
      const at = deps.clock.nowIso();
      const body = {
        keychain_id: st.keychain_id,
        stepped_down_at: at,
        home_epoch: st.epoch,
        new_home: newHome,
        new_epoch: epoch,
        note: 'This install was the home and was replaced; these are its parts as they stood. Nothing here was merged into the new home.',
        parts,
      };
      const dir = join(deps.dataDir, DIVERGENT_DIR);
      ensureSecretsDir(dir);
      // A copy a crash cut short holds secrets and names no step-down: it goes first.
      for (const f of readdirSync(dir))
        if (/\.tmp-[0-9a-f]+$/.test(f)) rmSync(join(dir, f), { force: true });
      const name = `${String(epoch)}-${at.replace(/[:.]/g, '-')}.json`;
      // Atomic, 0600 from the first byte, and the folder synced: the step-down that names
      // the file commits right after.
      writeSecretFile(join(dir, name), `${JSON.stringify(body, null, 2)}\n`);
      return { file: join(DIVERGENT_DIR, name), parts: Object.keys(parts) };
    },
  };
}
export type DivergentCopies = ReturnType<typeof createDivergentCopies>;
