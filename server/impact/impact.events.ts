// The events impact appends: the figures the scorecard prices incidents with.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const impactEvents = {
  'config.impact_set': Type.Object({
    figures: Type.Record(Type.String(), Type.Unknown()),
    via: Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' })),
  }),
} as const;
export type ImpactEvents = EventsOf<typeof impactEvents>;
