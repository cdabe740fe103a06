// Projections are tables derived from ledger events only, updated in the same transaction
// as the event, so that `svc-core rebuild` can recreate them from the ledger alone.
import type { LedgerEvent } from './ledger.types.js';

export interface Projection {
  readonly name: string;
  /** Tables this projection owns; rebuild empties them before replaying. */
  readonly tables: readonly string[];
  apply(event: LedgerEvent): void;
}

export interface Projections {
  register(projection: Projection): void;
  apply(event: LedgerEvent): void;
  all(): readonly Projection[];
}

export function createProjections(): Projections {
  const list: Projection[] = [];
  return {
    register(p) {
      if (list.some((q) => q.name === p.name))
        throw new Error(`projection ${p.name} registered twice`);
      list.push(p);
    },
    apply(event) {
      for (const p of list) p.apply(event);
    },
    all: () => list,
  };
}
