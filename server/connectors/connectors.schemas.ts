// Wire shapes of /v1/connectors. A connector document is what PUT takes and what is stored;
// its secret settings hold references ({file} or {env}), never values, except that a PUT
// or a test may carry {value}: the service writes it to a 0600 file (PUT) or uses it in
// memory only (test).
import { Type, type Static, type TSchema } from 'typebox';

export const NAME_PATTERN = '^[a-z][a-z0-9-]{0,62}$';
export const ENV_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';

export const TIMEOUT_DEFAULT_S = 10;
export const TIMEOUT_MAX_S = 300;
export const MAX_IN_FLIGHT_MAX = 256;

export const NameParams = Type.Object({
  name: Type.String({ pattern: NAME_PATTERN, description: 'lower case, digits and -' }),
});

const MaxInFlight = Type.Integer({
  minimum: 1,
  maximum: MAX_IN_FLIGHT_MAX,
  description: 'calls in flight to this connector; SVC_CONNECTOR_CONCURRENCY when absent',
});
const TimeoutS = Type.Integer({
  minimum: 1,
  maximum: TIMEOUT_MAX_S,
  description: `every call is abandoned after this many seconds (default ${String(TIMEOUT_DEFAULT_S)})`,
});
const Settings = Type.Record(Type.String(), Type.Unknown(), {
  description: "the kind's settings; a secret is {file}, {env} or (typed in) {value}",
});

const documentFields = {
  kind: Type.String({ minLength: 1, maxLength: 64 }),
  settings: Settings,
  max_in_flight: Type.Optional(MaxInFlight),
  timeout_s: Type.Optional(TimeoutS),
};

/** PUT /v1/connectors/<name>. */
export const ConnectorInput = Type.Object(documentFields, { additionalProperties: false });
export type ConnectorInput = Static<typeof ConnectorInput>;

/** POST /v1/connectors/test: a document, and the name it would be saved under. */
export const TestInput = Type.Object(
  { ...documentFields, name: Type.Optional(Type.String({ pattern: NAME_PATTERN })) },
  { additionalProperties: false },
);
export type TestInput = Static<typeof TestInput>;

/** A secret reference as stored: exactly one of file or env. */
export type SecretRef = { readonly file: string } | { readonly env: string };

/** A stored document: only references, never a secret value. */
export interface ConnectorDocument {
  readonly kind: string;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly max_in_flight?: number;
  readonly timeout_s?: number;
}

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const HealthView = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String(),
  duration_ms: Type.Integer({ minimum: 0 }),
});
export type HealthView = Static<typeof HealthView>;

export const LastHealth = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String(),
  duration_ms: Type.Integer({ minimum: 0 }),
  at: Type.String(),
});
export type LastHealth = Static<typeof LastHealth>;

export const ConnectorView = Type.Object({
  name: Type.String(),
  kind: Type.String(),
  settings: Type.Record(Type.String(), Type.Unknown(), {
    description: 'secret settings shown as their {file} or {env} reference',
  }),
  max_in_flight: Nullable(Type.Integer()),
  timeout_s: Type.Integer(),
  problem: Nullable(Type.String({ description: 'why the connector could not be built' })),
  last_health: Nullable(LastHealth),
  in_flight: Type.Integer({ minimum: 0 }),
  queued: Type.Integer({ minimum: 0 }),
  set_by: Nullable(Type.String()),
  set_at: Nullable(Type.String()),
});
export type ConnectorView = Static<typeof ConnectorView>;

export const ConnectorList = Type.Object({
  connectors: Type.Array(ConnectorView),
  file: Nullable(
    Type.String({ description: 'the SVC_CONNECTORS file that manages connectors, if any' }),
  ),
});
export type ConnectorList = Static<typeof ConnectorList>;

export const SettingView = Type.Object({
  name: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  description: Type.String(),
  default: Type.Optional(Type.Unknown()),
  minimum: Type.Optional(Type.Number()),
  maximum: Type.Optional(Type.Number()),
  secret: Type.Boolean(),
});
export type SettingView = Static<typeof SettingView>;

export const KindView = Type.Object({
  kind: Type.String(),
  title: Type.String(),
  description: Type.String(),
  capabilities: Type.Array(Type.String()),
  operations: Type.Array(Type.String()),
  settings: Type.Array(SettingView),
});
export type KindView = Static<typeof KindView>;

export const Catalogue = Type.Object({
  kinds: Type.Array(KindView),
  framework: Type.Array(SettingView, {
    description: 'settings every connector has, beside its settings object',
  }),
});
export type Catalogue = Static<typeof Catalogue>;

export const Removed = Type.Object({ name: Type.String(), removed: Type.Literal(true) });
export type Removed = Static<typeof Removed>;

/** POST /v1/connectors/ssh/keypair. */
export const SshKeypairInput = Type.Object(
  {
    name: Type.String({ pattern: NAME_PATTERN, description: 'the ssh connector the key is for' }),
    gate_path: Type.Optional(
      Type.String({
        pattern: '^/[A-Za-z0-9._/-]{1,255}$',
        description: 'where the gate is installed on the hosts (default /usr/local/bin/svc-gate)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SshKeypairInput = Static<typeof SshKeypairInput>;

export const SshKeypair = Type.Object({
  name: Type.String(),
  public_key: Type.String({ description: '"ssh-ed25519 AAAA… svc-<name>"' }),
  fingerprint: Type.String({ description: 'SHA256:…' }),
  authorized_keys: Type.String({
    description: 'the line to install on each host: the key restricted to the gate command',
  }),
  private_key: Type.Object(
    { file: Type.String() },
    { description: 'the 0600 file holding the private key: the private_key setting' },
  ),
});
export type SshKeypair = Static<typeof SshKeypair>;

/** POST /v1/connectors/ssh/hostkey. */
export const SshHostkeyInput = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9._:-]+$' }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_535 })),
  },
  { additionalProperties: false },
);
export type SshHostkeyInput = Static<typeof SshHostkeyInput>;

export const SshHostkey = Type.Object({
  host: Type.String(),
  port: Type.Integer(),
  host_key: Type.String({ description: 'the key line to pin in the host_key setting' }),
  fingerprint: Type.String({ description: 'SHA256:…, to compare with ssh-keygen -lf on the host' }),
});
export type SshHostkey = Static<typeof SshHostkey>;
