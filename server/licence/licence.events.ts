// The events licence appends: an offline trial started.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const licenceEvents = {
  'licence.trial_started': Type.Object({
    tier: Type.String(),
    services: Type.Number(),
    install_limit: Type.Number(),
    days: Type.Number(),
    grace_days: Type.Number(),
    expires_at: Type.String(),
    fingerprint: Type.Union([Type.String(), Type.Null()]),
  }),
} as const;
export type LicenceEvents = EventsOf<typeof licenceEvents>;
