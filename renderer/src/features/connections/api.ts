// Connectors (docs/connectors.md): the catalogue of kinds, the configured connectors (secrets
// only ever as {file} or {env} references), and saving, removing and testing one.
import { call } from '../../shared/api.js';

export type ConnectorSettingType =
  'string' | 'url' | 'integer' | 'boolean' | 'string_list' | 'secret';

/** One setting of a kind (or a framework setting) as GET /v1/connectors/catalogue shows it. */
export interface ConnectorSetting {
  name: string;
  type: ConnectorSettingType;
  required: boolean;
  description: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  secret: boolean;
}

export interface ConnectorKind {
  kind: string;
  title: string;
  description: string;
  capabilities: string[];
  operations: string[];
  settings: ConnectorSetting[];
}

export interface ConnectorCatalogue {
  kinds: ConnectorKind[];
  /** Settings every connector has beside its settings object: max_in_flight, timeout_s. */
  framework: ConnectorSetting[];
}

export interface ConnectorHealth {
  ok: boolean;
  detail: string;
  duration_ms: number;
}

export interface Connector {
  name: string;
  kind: string;
  /** Secret settings appear as their SecretRef. */
  settings: Record<string, unknown>;
  max_in_flight: number | null;
  timeout_s: number;
  problem: string | null;
  last_health: (ConnectorHealth & { at: string }) | null;
  in_flight: number;
  queued: number;
  set_by: string | null;
  set_at: string | null;
}

export interface ConnectorList {
  connectors: Connector[];
  /** The SVC_CONNECTORS file that manages connectors (PUT and DELETE answer 409), or null. */
  file: string | null;
}

/** PUT /v1/connectors/<name> and POST /v1/connectors/test (with the name it would have). */
export interface ConnectorInput {
  kind: string;
  settings: Record<string, unknown>;
  max_in_flight?: number;
  timeout_s?: number;
}

export const connectorApi = {
  catalogue: () => call<ConnectorCatalogue>('GET', '/v1/connectors/catalogue'),
  list: () => call<ConnectorList>('GET', '/v1/connectors'),
  put: (name: string, body: ConnectorInput) =>
    call<Connector>('PUT', `/v1/connectors/${encodeURIComponent(name)}`, body),
  remove: (name: string) =>
    call<{ name: string; removed: true }>('DELETE', `/v1/connectors/${encodeURIComponent(name)}`),
  test: (body: ConnectorInput & { name?: string }) =>
    call<ConnectorHealth>('POST', '/v1/connectors/test', body),
};
