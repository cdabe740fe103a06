// The events mail appends: its settings replaced (secrets as references) and a test sent.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const mailEvents = {
  'config.mail_set': Type.Object(
    { via: Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' })) },
    { description: 'the mail settings, secrets masked, with via' },
  ),
  'config.mail_tested': Type.Object({
    to: Type.String(),
    ok: Type.Boolean(),
    detail: Type.String(),
    duration_ms: Type.Number(),
  }),
} as const;
export type MailEvents = EventsOf<typeof mailEvents>;
