// The events access appends: sign-ins and sign-outs, failed attempts, passwords, identities
// bound by single sign-on, its settings, and the first owner's bootstrap.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const accessEvents = {
  'auth.signed_in': Type.Object({
    session_id: Type.String(),
    user_id: Type.String(),
    role: Type.String(),
    method: Type.String(),
  }),
  'auth.signed_out': Type.Object({ session_id: Type.String(), why: Type.String() }),
  'auth.sign_in_failed': Type.Object({
    method: Type.String(),
    account: Type.String(),
    address: Type.String(),
    why: Type.String(),
  }),
  'auth.password_set': Type.Object({
    user_id: Type.String(),
    changed: Type.Boolean(),
    rehashed: Type.Optional(Type.Boolean()),
  }),
  'auth.identity_bound': Type.Object({
    user_id: Type.String(),
    provider: Type.String(),
    subject: Type.String(),
  }),
  'config.sso_set': Type.Object({
    settings: Type.Unknown(),
    via: Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' })),
  }),
  'system.bootstrap': Type.Object({
    user_id: Type.String(),
    email: Type.String(),
    address: Type.String(),
  }),
} as const;
export type AccessEvents = EventsOf<typeof accessEvents>;
