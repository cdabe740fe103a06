// The event types callers post (POST /v1/events) that the service itself reads: deploys and
// actions people or CI report, listed as what changed before an episode. Other types with an
// ingest prefix are the sender's own and stored as sent.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const ingestedEvents = {
  'human.deploy': Type.Object({
    service: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
  }),
  'human.action': Type.Object({
    service: Type.Optional(Type.String()),
    action: Type.Optional(Type.String()),
    detail: Type.Optional(Type.String()),
  }),
} as const;
export type IngestedEvents = EventsOf<typeof ingestedEvents>;
