// Projections are tables derived from ledger events only, updated in the same transaction
// as the event, so that `svc-core rebuild` can recreate them from the ledger alone.
import type { LedgerEvent } from './ledger.types.js';

export interface Projection {
  readonly name: string;
  /** Tables this projection owns; rebuild empties them before replaying. */
  readonly tables: readonly string[];
  /** Event types it applies: written only by the service itself, never through POST /v1/events. */
  readonly types: readonly string[];
  apply(event: LedgerEvent): void;
}

export interface Projections {
  register(projection: Projection): void;
  apply(event: LedgerEvent): void;
  all(): readonly Projection[];
  /** Whether a projection owns this event type. */
  owns(type: string): boolean;
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
    owns: (type) => list.some((p) => p.types.includes(type)),
  };
}
