// The events of the install itself: its first start, and every start and clean stop.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

export const installEvents = {
  'system.installed': Type.Object({
    instance: Type.String(),
    key_fingerprint: Type.String(),
    fingerprint: Type.Union([Type.String(), Type.Null()]),
    version: Type.String(),
  }),
  'system.started': Type.Object({
    version: Type.String(),
    instance: Type.String(),
    pid: Type.Number(),
    previous_stop_clean: Type.Boolean(),
  }),
  'system.stopped': Type.Object({ version: Type.String() }),
} as const;
export type InstallEvents = EventsOf<typeof installEvents>;
