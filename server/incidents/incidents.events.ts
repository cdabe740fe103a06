// The events incidents append: an episode placed in an incident, an incident's status, and
// an episode linked into another incident by a proven cause.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Placed = {
  incident_id: Type.String(),
  episode_id: Type.String(),
  service: Type.String(),
};

export const incidentEvents = {
  'incident.opened': Type.Object({
    ...Placed,
    group_key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
  'incident.joined': Type.Object(Placed),
  'incident.status': Type.Object({
    incident_id: Type.String(),
    from: Type.String(),
    to: Type.String(),
  }),
  'incident.linked': Type.Object({
    ...Placed,
    from_incident: Type.String({ description: 'the incident the episode leaves' }),
    relation: Type.String({ description: 'downstream, same_cause or related' }),
    to_episode: Type.String({ description: 'the episode whose proven cause explains it' }),
  }),
} as const;
export type IncidentEvents = EventsOf<typeof incidentEvents>;
