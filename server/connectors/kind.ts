// What a connector kind is: its settings (which are secret), its capabilities, and how it
// builds a client from resolved settings. The framework (registry, store, limits, routes)
// is generic; each kind lives in server/connectors/kinds/<kind>.ts.
import type { Secret } from '../shared/secret.js';

export const CAPABILITIES = [
  'query', // PromQL instant and range queries
  'discover', // services and links for the estate
  'poll_alerts', // firing alerts, polled
  'silences', // Alertmanager silences
  'probe', // HTTP status, latency, TLS expiry
  'gate', // read-only checks and permitted actions over ssh
  'sql', // read-only SQL
  'changes', // recent changes for "what changed"
  'notify', // approval requests and notifications sent to people (mail, chat, webhook)
  'history', // resolved incidents over a window, counted only (paging and ticketing tools)
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface SettingSpec {
  readonly name: string;
  readonly type: 'string' | 'url' | 'integer' | 'boolean' | 'string_list' | 'secret';
  readonly required: boolean;
  readonly description: string;
  readonly default?: string | number | boolean | readonly string[];
  /** integer bounds */
  readonly minimum?: number;
  readonly maximum?: number;
}

/** Settings as a client gets them: secrets resolved from their {file}/{env} references. */
export type ResolvedSettings = Readonly<
  Record<string, string | number | boolean | readonly string[] | Secret | undefined>
>;

export interface HealthResult {
  readonly ok: boolean;
  /** one line an operator can act on, e.g. "HTTP 200 in 12 ms, Prometheus 2.42.0" */
  readonly detail: string;
  readonly duration_ms: number;
}

export interface ConnectorClient {
  /** A cheap call that proves the connection works; must honour the signal. */
  health(signal: AbortSignal): Promise<HealthResult>;
  /**
   * One named operation of a capability (e.g. 'query', 'range_query', 'targets', 'alerts',
   * 'probe'); arguments and answer are the kind's own. Must honour the signal.
   */
  call(op: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<unknown>;
  close?(): Promise<void>;
}

export interface ConnectorKind {
  readonly kind: string;
  readonly title: string;
  readonly description: string;
  readonly capabilities: readonly Capability[];
  readonly settings: readonly SettingSpec[];
  /** The operations `call` accepts. */
  readonly operations: readonly string[];
  create(settings: ResolvedSettings): ConnectorClient;
}
