// The events policy appends: the policy document loaded from its file or replaced by a person.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Document = Type.Unknown({ description: 'the whole policy document' });

export const policyEvents = {
  'policy.loaded': Type.Object({ policy: Document, file: Type.String(), sha256: Type.String() }),
  'policy.set': Type.Object({
    policy: Document,
    sha256: Type.String(),
    via: Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' })),
  }),
} as const;
export type PolicyEvents = EventsOf<typeof policyEvents>;
