// The events the ledger appends itself: a segment sealed.
import { Type } from 'typebox';
import type { EventsOf } from './catalogue.js';

export const ledgerEvents = {
  'ledger.sealed': Type.Object({
    segment: Type.Number(),
    first_seq: Type.Number(),
    last_seq: Type.Number(),
    digest: Type.String({ description: 'the Merkle digest, base64' }),
    checkpoint: Type.String({ description: 'the signed checkpoint note' }),
  }),
} as const;
export type LedgerEvents = EventsOf<typeof ledgerEvents>;
