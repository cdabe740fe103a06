// The check pack document: which signals it matches, which read-only checks it runs, how a
// reading becomes a finding, which causes the findings prove, support or rule out, and which
// fixes exist. Packs are data; server/investigate runs them. The TypeBox schema that
// validates a document is server/packs/pack.schema.ts; docs/packs.md explains every field.
//
// Templates: strings in `args`, `title`, `says` may hold `{name}` placeholders, filled from
// the episode's variables (service, host, alertname, label.<name>) and the values read so
// far (`<check id>.<value name>`, e.g. `{pg.connections.top_idle_role}`). An unknown name
// leaves the check (or fix) not runnable, with the name in its reason; never an empty string.

export type ConnectorKindName = 'ssh' | 'prometheus' | 'postgresql' | 'http' | 'git';
export type Risk = 'low' | 'medium' | 'high';

/** A glob: `*` any run of characters, `?` one; case-sensitive. */
export type Glob = string;

export interface PackMatch {
  /** alert names (globs); any one matches */
  readonly alerts?: readonly Glob[];
  /** every label must be present and match (globs) */
  readonly labels?: Readonly<Record<string, Glob>>;
  /** service names (globs) or estate service kinds; any one matches */
  readonly services?: readonly Glob[];
}

/** One operation of a connector, its arguments templated. */
export interface PackCall {
  readonly op: string;
  readonly args?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * A value read from the connector's answer by a path:
 *   `a.b`        property;  `a[2]` index;  `a[name={service}]` first element whose key equals
 *   (templated) value;  `a[*].b` every element;  a final `|count`, `|max`, `|min`, `|sum`,
 *   `|first`, `|any` (at least one truthy) or `|none` turns a list into one value.
 * A path that finds nothing gives null (and a condition on null is false, except `absent`).
 */
export interface PackValue {
  readonly path: string;
}

export type ConditionOp =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'ge'
  | 'lt'
  | 'le'
  | 'in'
  | 'not_in'
  | 'matches' // a regular expression (JavaScript syntax, no flags)
  | 'mentions' // the text names one of `than`'s words (a list, or `{check.value}` read for the service)
  | 'error_names' // as mentions, on a line that reads as an error (error, failed, refused, …)
  | 'present'
  | 'absent';

export interface PackCondition {
  /** a value name of this check */
  readonly value: string;
  readonly op: ConditionOp;
  /**
   * number, string, or list for in/not_in; not for present/absent. For `mentions`, a list of
   * words or one placeholder naming a value another check read for the same service
   * (`{change.diff.added}`); that check is read first.
   */
  readonly than?: string | number | boolean | readonly (string | number)[];
}

export interface PackFindingRule {
  /** unique in the pack, e.g. `unit_down`; referred to as `<check id>.<rule id>` */
  readonly id: string;
  /** every condition holds */
  readonly when: readonly PackCondition[];
  /** the finding as a person reads it (templated) */
  readonly says: string;
}

export interface PackCheck {
  /** unique across all packs, `<pack id>.<name>`, e.g. `host.services` */
  readonly id: string;
  readonly title: string;
  readonly connector: ConnectorKindName;
  readonly call: PackCall;
  /** seconds; the connector's own timeout still applies */
  readonly timeout_s?: number;
  readonly values: Readonly<Record<string, PackValue>>;
  readonly findings: readonly PackFindingRule[];
  /**
   * `service` (default): run against the episode's service. `dependency`: also run against
   * each service it depends on (estate links, one hop), for `linked` causes.
   */
  readonly scope?: 'service' | 'dependency';
}

export interface PackCause {
  /** e.g. `service_down`; the same id in two packs is the same cause */
  readonly id: string;
  /** templated, e.g. `{service} is down` */
  readonly title: string;
  /** finding references `<check id>.<rule id>` */
  readonly proves: readonly string[];
  readonly supports: readonly string[];
  readonly refutes: readonly string[];
  /**
   * Findings that must all be present, besides a proving one, for `proven`: the mechanism
   * (a change reaches the failing service AND its error names what changed), where one
   * finding alone would be a coincidence. Without them the cause stays `suspected`.
   */
  readonly requires?: readonly string[];
  /**
   * The alerts this cause produces in services that depend on its service: when the cause is
   * proven on a dependency and the episode's alerts match one of these, it is `linked`.
   */
  readonly downstream?: { readonly alerts: readonly Glob[] };
  /** fix ids of this pack, in order of preference; none: a person must act (ask_human) */
  readonly fixes: readonly string[];
}

export interface PackVerify {
  /** every named finding (`<check id>.<rule id>`) must be present after the action */
  readonly expect: readonly string[];
  /** every named finding must be absent after the action */
  readonly expect_absent: readonly string[];
  /** seconds the checks are re-run for (every few seconds) before verification fails */
  readonly within_s: number;
  /** also wait for the episode's alerts to end within this many seconds (0: do not wait) */
  readonly alert_ends_within_s: number;
}

export interface PackFix {
  readonly id: string;
  readonly title: string;
  readonly risk: Risk;
  readonly connector: ConnectorKindName;
  /** `restore` for a fix that rolls back a change (decision restore), else `fix` */
  readonly kind: 'fix' | 'restore';
  /**
   * Findings that show this fix would change what explains the symptom (the cache holds the
   * space a clear would free); when one is absent the fix is not offered and a person is
   * asked, with why.
   */
  readonly fits?: readonly string[];
  /** the gate's dry run (`dry_run` op), or null where the connector has none */
  readonly dry_run: PackCall | null;
  readonly action: PackCall;
  readonly verify: PackVerify;
  /** the call that undoes the action, or null where it cannot be undone */
  readonly take_back: PackCall | null;
}

export interface Pack {
  /** `host`, `nginx`, `postgresql`, `http`, `change`, … */
  readonly id: string;
  readonly version: number;
  readonly title: string;
  /** any one matches; [] never matches (a pack used only for its dependency checks) */
  readonly matches: readonly PackMatch[];
  readonly checks: readonly PackCheck[];
  readonly causes: readonly PackCause[];
  readonly fixes: readonly PackFix[];
}

/** The file in SVC_PACKS: the pack and its signature over canonicalJson(pack). */
export interface SignedPack {
  readonly pack: Pack;
  readonly signature: {
    readonly alg: 'ed25519';
    /** SHA-256 of the signer's raw public key, base32 (as the install key fingerprint) */
    readonly key: string;
    /** base64 */
    readonly sig: string;
  };
}

/** A pack as the service holds it: loaded, or refused with why. */
export interface LoadedPack {
  readonly id: string;
  readonly version: number;
  readonly title: string;
  readonly file: string;
  readonly sha256: string;
  readonly signer: string;
  readonly pack: Pack;
}
export interface RefusedPack {
  readonly file: string;
  readonly why: string;
  /** set when the file is not signed, or not by a key this build trusts */
  readonly unsigned?: true;
}

/** Whether the licence opens a pack, and why not; the packs domain only asks (compose wires it). */
export type PackGate = (packId: string) => { readonly opened: boolean; readonly why?: string };

/**
 * One reading of one check, shown to a person as evidence: a finding rule that held, or the
 * call that failed. The investigation reads them; act re-reads them to verify a fix.
 */
export interface Finding {
  /** `<check id>.<rule id>`, or `<check id>.unreadable` when the call failed */
  readonly id: string;
  readonly check: string;
  readonly connector: string;
  /** the operation and its arguments, as sent: `services {}`, `query {"query":"up"}` */
  readonly call: string;
  /** which service it was read for (the episode's, or a dependency's) */
  readonly service: string;
  /** the finding as a person reads it */
  readonly says: string;
  /** the values the rule looked at */
  readonly values: Readonly<Record<string, unknown>>;
  /** at most 1,000 characters of the answer (JSON), so a person can check it */
  readonly excerpt: string;
  readonly at: string;
  /** false: the call failed (`could not read`) */
  readonly readable: boolean;
}
