// One normalised alert: what every source's webhook body becomes (specification, alert
// intake; shared/fixtures/alerts/NORMALISATION.md maps each format's fields).
export const Severity = {
  Critical: 'critical',
  High: 'high',
  Warning: 'warning',
  Info: 'info',
  Unknown: 'unknown',
} as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export const SignalStatus = { Firing: 'firing', Resolved: 'resolved' } as const;
export type SignalStatus = (typeof SignalStatus)[keyof typeof SignalStatus];

export interface Signal {
  /** The normaliser that read it: the `<source>` name, or what `auto` recognised. */
  readonly source: string;
  /** Rule, alert or check name: stable across firings, not a rendered title. */
  readonly name: string;
  readonly status: SignalStatus;
  readonly severity: Severity;
  /** Logical service, when the body names one; intake derives it from labels otherwise. */
  readonly service: string | null;
  /** Host, instance, resource id or entity. */
  readonly resource: string | null;
  /** Dedup key: the same alert instance has the same value when firing and when resolved. */
  readonly fingerprint: string;
  /** ISO 8601 UTC. */
  readonly started_at: string;
  /** ISO 8601 UTC, only when resolved. */
  readonly ended_at: string | null;
  readonly summary: string;
  /** Everything else worth keeping, flattened to strings. */
  readonly labels: Readonly<Record<string, string>>;
  readonly link: string | null;
}

export interface NormaliseContext {
  /** When the body arrived, ISO 8601 UTC: the time of sources that send none. */
  readonly receivedAt: string;
  /** Request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/**
 * What a normaliser makes of a body: signals (possibly none, for an empty batch), or a
 * control message that is acknowledged and ignored (SNS subscription confirmations,
 * PagerDuty service events, Suricata non-alert events, …).
 */
export type NormaliseResult =
  | { readonly kind: 'signals'; readonly signals: readonly Signal[] }
  | { readonly kind: 'control'; readonly reason: string };

export interface Normaliser {
  /** The `<source>` path segment (a folder name of the fixtures). */
  readonly source: string;
  /** Other names accepted in the path, e.g. `prometheus` for alertmanager. */
  readonly aliases?: readonly string[];
  /** Cheap and strict: does this body (and its headers) look like this source's format? */
  detect(body: unknown, ctx: NormaliseContext): boolean;
  /** Read the body; throws NotReadableError (with why) when it is not this format. */
  normalise(body: unknown, ctx: NormaliseContext): NormaliseResult;
}

/** The body is not (a valid instance of) this normaliser's format. */
export class NotReadableError extends Error {
  override readonly name = 'NotReadableError';
}
