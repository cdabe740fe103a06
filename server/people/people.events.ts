// The events people append: people and teams made, changed, removed, and the access settings.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Via = Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' }));
const Doc = Type.Unknown();

export const peopleEvents = {
  'access.user_created': Type.Object({ user: Doc, via: Via }),
  'access.user_updated': Type.Object({ user: Doc, changed: Type.Array(Type.String()), via: Via }),
  'access.user_deleted': Type.Object({
    id: Type.String(),
    email: Type.String(),
    ended_sessions: Type.Number(),
    via: Via,
  }),
  'access.role_changed': Type.Object({
    id: Type.String(),
    email: Type.String(),
    from: Type.String(),
    to: Type.String(),
    sessions: Type.Number(),
    via: Via,
  }),
  'access.team_created': Type.Object({ team: Doc, via: Via }),
  'access.team_updated': Type.Object({ team: Doc, via: Via }),
  'access.team_deleted': Type.Object({ id: Type.String(), name: Type.String(), via: Via }),
  'access.access_settings_set': Type.Object({ settings: Doc, via: Via }),
} as const;
export type PeopleEvents = EventsOf<typeof peopleEvents>;
