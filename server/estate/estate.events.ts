// The events estate appends: what discovery found or why it failed, link overrides, and
// suggested links confirmed or dismissed.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Via = Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' }));
const Suggestion = {
  id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  evidence: Type.Unknown(),
};

export const estateEvents = {
  'estate.discovered': Type.Object(
    {
      connector: Type.String(),
      job_id: Type.String(),
      observations: Type.Optional(Type.Unknown()),
      via: Via,
    },
    { description: 'and what the reader found (services, hosts, links)' },
  ),
  'estate.discover_failed': Type.Object({
    connector: Type.String(),
    detail: Type.String(),
    job_id: Type.String(),
    via: Via,
  }),
  'config.estate_overrides': Type.Object({ overrides: Type.Unknown(), via: Via }),
  'estate.suggestion_confirmed': Type.Object({ ...Suggestion, score: Type.Number(), via: Via }),
  'estate.suggestion_dismissed': Type.Object({
    ...Suggestion,
    reason: Type.Union([Type.String(), Type.Null()]),
    via: Via,
  }),
} as const;
export type EstateEvents = EventsOf<typeof estateEvents>;
