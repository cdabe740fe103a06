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
  /** Set when the admin token acted on someone's behalf (`by`). */
  readonly via?: string;
}
