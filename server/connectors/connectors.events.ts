// The events connectors append: a connector saved (secrets as references) or removed, and an
// SSH key pair made.
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Via = Type.Optional(Type.String({ description: 'how the actor acted (e.g. on behalf of)' }));

export const connectorEvents = {
  'config.connector_set': Type.Object({
    name: Type.String(),
    connector: Type.Unknown({ description: 'the connector document, secrets as references' }),
    via: Via,
  }),
  'config.connector_removed': Type.Object({ name: Type.String(), via: Via }),
  'config.connector_keypair': Type.Object({
    name: Type.String(),
    fingerprint: Type.String(),
    private_key: Type.Unknown({ description: 'a reference to the private key file' }),
    via: Via,
  }),
} as const;
export type ConnectorEvents = EventsOf<typeof connectorEvents>;
