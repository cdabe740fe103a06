// The events snapshots append: a connector's configuration facts changed, or could not be read.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Facts = Type.Record(Type.String(), Type.String());

export const snapshotEvents = {
  'snapshot.changed': Type.Object({
    connector: Type.String(),
    added: Facts,
    removed: Facts,
    changed: Type.Record(Type.String(), Type.Object({ from: Type.String(), to: Type.String() })),
    first: Type.Optional(Type.Boolean({ description: 'the first snapshot: all additions' })),
  }),
  'snapshot.failed': Type.Object({ connector: Type.String(), detail: Type.String() }),
  'snapshot.recovered': Type.Object({ connector: Type.String() }),
} as const;
export type SnapshotEvents = EventsOf<typeof snapshotEvents>;
