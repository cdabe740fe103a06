// The event lookback appends: one report of resolved incidents counted over a window, per
// connection that keeps history (a count, or why there is none). Counts only: no incident.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const LOOKBACK_REPORTED = 'lookback.reported';

export const ConnectionCount = Type.Object({
  name: Type.String({ description: 'the connection' }),
  kind: Type.String({ description: 'its kind (pagerduty, opsgenie, …)' }),
  count: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'resolved incidents in the window; null when it could not be read',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it could not be read' }),
  detail: Type.Union([Type.String(), Type.Null()], { description: 'how it was counted' }),
});

export const lookbackEvents = {
  [LOOKBACK_REPORTED]: Type.Object({
    days: Type.Integer({ minimum: 7, maximum: 365 }),
    since: Type.String({ description: 'start of the window (ISO-8601 UTC)' }),
    until: Type.String({ description: 'end of the window, when it ran' }),
    total: Type.Integer({ description: 'the sum of the counts that were read' }),
    connections: Type.Array(ConnectionCount),
    via: Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' })),
  }),
} as const;
export type LookbackEvents = EventsOf<typeof lookbackEvents>;
