// The event types callers post (POST /v1/events) that the service itself reads: deploys and
// actions people or CI report, listed as what changed before an episode. Other types with an
// ingest prefix are the sender's own and stored as sent.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

/** A deploy people or CI report: what changed. */
export const HUMAN_DEPLOY = 'human.deploy';
/** An action people report taking: what changed. */
export const HUMAN_ACTION = 'human.action';

export const ingestedEvents = {
  [HUMAN_DEPLOY]: Type.Object({
    service: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
  }),
  [HUMAN_ACTION]: Type.Object({
    service: Type.Optional(Type.String()),
    action: Type.Optional(Type.String()),
    detail: Type.Optional(Type.String()),
  }),
} as const;
export type IngestedEvents = EventsOf<typeof ingestedEvents>;
