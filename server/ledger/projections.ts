// Projections are tables derived from ledger events only, updated in the same transaction
// as the event, so that `svc-core rebuild` can recreate them from the ledger alone.
import type { EventType } from './catalogue.js';
import type { LedgerEvent } from './ledger.types.js';

export interface Projection {
  readonly name: string;
  /** Tables this projection owns; rebuild empties them before replaying. */
  readonly tables: readonly string[];
  /** Indexes its tables keep up to date themselves (full-text search, by triggers). */
  readonly indexes?: readonly DerivedIndex[];
  /** Event types it applies: written only by the service itself, never through POST /v1/events. */
  readonly types: readonly string[];
  /** Every type `apply` acts on: its own handlers and its reactions to other domains' types. */
  readonly handles: readonly string[];
  apply(event: LedgerEvent): void;
}

/**
 * An index its table's writes keep in step (in the same transaction): rebuild empties it
 * before emptying the tables, so that the replay refills it whatever state it was in, and
 * compares its check, live against rebuilt.
 */
export interface DerivedIndex {
  readonly name: string;
  /** Drop every entry without reading them (a corrupt index must not stop a rebuild). */
  clear(): void;
  /** What rebuild compares: whether the index holds exactly its table's rows. */
  check(): unknown[];
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
  // Every append asks which projections apply its type, and POST /v1/events whether one
  // owns it: both are lookups, not walks over every projection.
  const byType = new Map<string, Projection[]>();
  const owned = new Set<string>();
  return {
    register(p) {
      if (list.some((q) => q.name === p.name))
        throw new Error(`projection ${p.name} registered twice`);
      list.push(p);
      for (const t of p.types) owned.add(t);
      for (const t of new Set(p.handles)) {
        const applying = byType.get(t);
        if (applying === undefined) byType.set(t, [p]);
        else applying.push(p);
      }
    },
    apply(event) {
      const applying = byType.get(event.type);
      if (applying !== undefined) for (const p of applying) p.apply(event);
    },
    all: () => list,
    owns: (type) => owned.has(type),
  };
}

/** One handler per event type, given that type's data as its catalogue declares it. */
export type ProjectionHandlers<E> = {
  readonly [K in EventType<E>]?: (data: E[K], event: LedgerEvent) => void;
};

/**
 * A handler for another domain's event type: the projection reacts to it, its owner's
 * projection keeps it (so it is not among this one's `types`).
 */
export interface Reaction {
  readonly type: string;
  apply(data: unknown, event: LedgerEvent): void;
}

/**
 * A reaction given the data it reads. The composition root names the type and proves at
 * compile time that its owner's schema carries that data, so this is the one place it is
 * taken as such; handlers keep their guards, as rebuild replays rows as stored.
 */
export function reactionTo<D>(
  type: string,
  apply: (data: D, event: LedgerEvent) => void,
): Reaction {
  return { type, apply: (data, event) => apply(data as D, event) };
}

/**
 * A projection declared by its handlers: it applies exactly the types it handles, each
 * handler receiving the typed data. Appends were checked against the catalogue; rebuild
 * replays rows as stored, so handlers keep their guards for values a schema leaves open.
 */
export function projectionOf<E>(spec: {
  readonly name: string;
  readonly tables: readonly string[];
  readonly indexes?: readonly DerivedIndex[];
  readonly on: ProjectionHandlers<E>;
  /** Types it does not apply but keeps from POST /v1/events all the same. */
  readonly reserves?: readonly EventType<E>[];
  /** Other domains' types it also applies (their owners' projections keep them). */
  readonly reacts?: readonly Reaction[];
}): Projection {
  const handlers = new Map<string, (data: unknown, event: LedgerEvent) => void>(
    Object.entries(spec.on) as [string, (data: unknown, event: LedgerEvent) => void][],
  );
  const types = [...handlers.keys(), ...(spec.reserves ?? [])];
  for (const r of spec.reacts ?? []) {
    if (handlers.has(r.type)) throw new Error(`projection ${spec.name} handles ${r.type} twice`);
    handlers.set(r.type, (data, event) => r.apply(data, event));
  }
  return {
    name: spec.name,
    tables: spec.tables,
    ...(spec.indexes !== undefined && { indexes: spec.indexes }),
    types,
    handles: [...handlers.keys()],
    apply(event) {
      handlers.get(event.type)?.(event.data, event);
    },
  };
}
