// The events branding appends: the branding document replaced.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const brandingEvents = {
  'config.branding_set': Type.Object({
    branding: Type.Unknown({ description: 'the whole branding document' }),
    sha256: Type.String(),
    via: Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' })),
  }),
} as const;
export type BrandingEvents = EventsOf<typeof brandingEvents>;
