// The event catalogue: every event type the service appends, with the schema of its data,
// declared by the domain that appends it (`<domain>.events.ts`). The ledger imports no
// domain: the composition root registers each domain's catalogue here, and append refuses
// an unknown type or data that fails its schema before anything is written.
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { LedgerEvent } from './ledger.types.js';

/** A domain's event types and the schema of each one's data. */
export type Catalogue = Readonly<Record<string, TSchema>>;

/** The data type of each event type of a catalogue (what appenders and projections see). */
export type EventsOf<C extends Catalogue> = { [K in keyof C]: Static<C[K]> };

/** The event types of an event map. */
export type EventType<E> = Extract<keyof E, string>;

/** Data as appenders hold it: arrays and nested objects may be readonly. */
export type ReadonlyDeep<T> = T extends readonly (infer U)[]
  ? readonly ReadonlyDeep<U>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadonlyDeep<T[K]> }
    : T;

/** What a domain asks to append: only a catalogued type, with that type's data. */
export interface TypedAppendInput<E, K extends EventType<E>> {
  readonly type: K;
  readonly actor: string;
  readonly data: ReadonlyDeep<E[K]>;
  readonly reason?: string | null;
  readonly trace_id?: string | null;
}

/** The ledger as a domain sees it: append takes only its own catalogue's types. */
export interface EventAppender<E> {
  append<K extends EventType<E>>(input: TypedAppendInput<E, K>): LedgerEvent;
}

/** Why an event was refused: an unknown type, or the first path where its data fails. */
export class EventRefused extends Error {
  readonly type: string;
  /** The data path that failed ('' for the whole data), null for an unknown type. */
  readonly path: string | null;
  constructor(type: string, path: string | null, message: string) {
    super(message);
    this.name = 'EventRefused';
    this.type = type;
    this.path = path;
  }
}

export interface CatalogueEntry {
  readonly type: string;
  /** The domain that appends it. */
  readonly owner: string;
  readonly schema: TSchema;
}

export interface EventRegistry {
  has(type: string): boolean;
  /** Throws EventRefused unless the type is catalogued and the data matches its schema. */
  check(type: string, data: unknown): void;
  /** Every catalogued type, sorted by type. */
  entries(): readonly CatalogueEntry[];
}

interface Compiled {
  readonly entry: CatalogueEntry;
  readonly check: (data: unknown) => boolean;
  readonly firstError: (data: unknown) => { path: string; message: string } | null;
}

export function createEventRegistry(
  catalogues: readonly { readonly owner: string; readonly events: Catalogue }[] = [],
): EventRegistry {
  const types = new Map<string, Compiled>();
  // A type declared twice is a programming error.
  const register = (owner: string, catalogue: Catalogue): void => {
    for (const [type, schema] of Object.entries(catalogue)) {
      const other = types.get(type);
      if (other !== undefined)
        throw new Error(`event type ${type} is declared by ${other.entry.owner} and ${owner}`);
      // Compiled once here, so append pays only the check.
      const validator = Compile(schema);
      types.set(type, {
        entry: { type, owner, schema },
        check: (data) => validator.Check(data),
        firstError: (data) => {
          const [first] = validator.Errors(data);
          return first === undefined
            ? null
            : { path: first.instancePath.slice(1).replaceAll('/', '.'), message: first.message };
        },
      });
    }
  };
  for (const c of catalogues) register(c.owner, c.events);
  return {
    has: (type) => types.has(type),
    check(type, data) {
      const compiled = types.get(type);
      if (compiled === undefined)
        throw new EventRefused(type, null, `event type ${type} is not in the event catalogue`);
      if (compiled.check(data)) return;
      const first = compiled.firstError(data) ?? { path: '', message: 'does not match' };
      const at = first.path === '' ? 'data' : `data.${first.path}`;
      throw new EventRefused(type, first.path, `event ${type}: ${at} ${first.message}`);
    },
    entries: () =>
      [...types.values()].map((c) => c.entry).sort((a, b) => (a.type < b.type ? -1 : 1)),
  };
}
