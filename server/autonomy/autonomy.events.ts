// The events autonomy appends: levels and fix mode set or asked for, and halt and resume.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Via = Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' }));
const Approved = {
  request_id: Type.Optional(Type.String()),
  requested_by: Type.Optional(Type.String()),
  requested_by_id: Type.Optional(Type.String()),
  approved_by: Type.Optional(Type.Array(Type.String())),
  approved_by_ids: Type.Optional(Type.Array(Type.String())),
};

export const autonomyEvents = {
  'autonomy.set': Type.Object({
    service: Type.String({ description: 'a service, or the default' }),
    level: Type.String(),
    from: Type.String(),
    actor_id: Type.Optional(Type.String()),
    ...Approved,
    via: Via,
  }),
  'autonomy.raise_requested': Type.Object({
    service: Type.String(),
    level: Type.String(),
    from: Type.String(),
    request_id: Type.String(),
    via: Via,
  }),
  'fix_mode.set': Type.Object({
    mode: Type.String({ description: 'advise or draft' }),
    from: Type.String(),
    ...Approved,
    via: Via,
  }),
  'system.halt': Type.Object({ reason: Type.String(), via: Via }),
  'system.resume': Type.Object({ reason: Type.Optional(Type.String()), via: Via }),
} as const;
export type AutonomyEvents = EventsOf<typeof autonomyEvents>;
