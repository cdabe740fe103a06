import type { Role } from './roles.js';

/** Who is calling. `name` is what the ledger records as the actor. */
export type Principal =
  | { readonly kind: 'admin-token'; readonly name: 'admin-token'; readonly role: Role }
  | { readonly kind: 'ingest-token'; readonly name: 'ingest-token'; readonly role: null }
  | {
      readonly kind: 'session';
      readonly name: string;
      readonly role: Role;
      readonly userId: string;
    };

/** The actor recorded for a state change. */
export interface Actor {
  readonly name: string;
  /**
   * Who it is, whatever the name says: a person's id (`usr-…`), `admin-token`, or the like.
   * Names change (PUT /v1/me); counting people (two-person rule) goes by this.
   */
  readonly id?: string;
  /** Set when the admin token acted on someone's behalf (`by`). */
  readonly via?: string;
}

/** Who an actor counts as: its id, else its name (an actor recorded before ids). */
export const actorId = (actor: Actor): string => actor.id ?? actor.name;
