// Connectors (docs/connectors.md): the catalogue of kinds, the configured connectors (secrets
// only ever as {file} or {env} references), and saving, removing and testing one. The shapes
// are the server's own (server/connectors/connectors.schemas.ts).
import { call } from '../../shared/api.js';
import type {
  Catalogue,
  ConnectorInput,
  ConnectorList,
  ConnectorView,
  HealthView,
  KindView,
  Removed,
  SettingView,
  TestInput,
} from '../../../../server/connectors/connectors.schemas.js';

/** One setting of a kind (or a framework setting) as GET /v1/connectors/catalogue shows it. */
export type ConnectorSetting = SettingView;
export type ConnectorKind = KindView;
/** The kinds, and the settings every connector has beside its settings object. */
export type ConnectorCatalogue = Catalogue;
export type ConnectorHealth = HealthView;
/** A configured connector; secret settings appear as their SecretRef. */
export type Connector = ConnectorView;
export type { ConnectorInput, ConnectorList, TestInput };

export const connectorApi = {
  catalogue: () => call<ConnectorCatalogue>('GET', '/v1/connectors/catalogue'),
  list: () => call<ConnectorList>('GET', '/v1/connectors'),
  put: (name: string, body: ConnectorInput) =>
    call<Connector>('PUT', `/v1/connectors/${encodeURIComponent(name)}`, body),
  remove: (name: string) => call<Removed>('DELETE', `/v1/connectors/${encodeURIComponent(name)}`),
  test: (body: TestInput) => call<ConnectorHealth>('POST', '/v1/connectors/test', body),
};
