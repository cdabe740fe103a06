// Projections are tables derived from ledger events only, updated in the same transaction
// as the event, so that `svc-core rebuild` can recreate them from the ledger alone.
import type { EventType } from './catalogue.js';
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

/** One handler per event type, given that type's data as its catalogue declares it. */
export type ProjectionHandlers<E> = {
  readonly [K in EventType<E>]?: (data: E[K], event: LedgerEvent) => void;
};

/**
 * A projection declared by its handlers: it applies exactly the types it handles, each
 * handler receiving the typed data. Appends were checked against the catalogue; rebuild
 * replays rows as stored, so handlers keep their guards for values a schema leaves open.
 */
export function projectionOf<E>(spec: {
  readonly name: string;
  readonly tables: readonly string[];
  readonly on: ProjectionHandlers<E>;
  /** Types it does not apply but keeps from POST /v1/events all the same. */
  readonly reserves?: readonly EventType<E>[];
}): Projection {
  const handlers = new Map<string, (data: unknown, event: LedgerEvent) => void>(
    Object.entries(spec.on) as [string, (data: unknown, event: LedgerEvent) => void][],
  );
  return {
    name: spec.name,
    tables: spec.tables,
    types: [...handlers.keys(), ...(spec.reserves ?? [])],
    apply(event) {
      handlers.get(event.type)?.(event.data, event);
    },
  };
}
