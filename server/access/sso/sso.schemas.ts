// Wire shapes of single sign-on: the settings, discover, test, groups, sync and redeem.
import { Type, type Static } from 'typebox';
import { IsoTime } from '../../http/common.schemas.js';

const SecretRef = Type.Union([
  Type.Object(
    { file: Type.String({ minLength: 2, maxLength: 4096 }) },
    { additionalProperties: false },
  ),
  Type.Object(
    { env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 200 }) },
    { additionalProperties: false },
  ),
]);
const SecretInput = Type.Union([
  SecretRef,
  Type.Object(
    { value: Type.String({ minLength: 1, maxLength: 4096 }) },
    { additionalProperties: false },
  ),
]);

export const SsoSettingsInput = Type.Object(
  {
    issuer: Type.String({
      maxLength: 2048,
      description: "the provider's issuer URL (https://, or http:// on loopback only)",
    }),
    client_id: Type.String({ maxLength: 512 }),
    client_secret: Type.Optional(
      Type.Union([SecretInput, Type.Null()], {
        description:
          '{file}, {env} or a typed {value} (written to a 0600 file); null for a public client (PKCE only); left out: unchanged',
      }),
    ),
    redirect_uri: Type.String({
      maxLength: 2048,
      description: 'https://<this service>/v1/auth/sso/callback, as registered at the provider',
    }),
    scopes: Type.Optional(
      Type.Array(
        Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }),
        { maxItems: 50 },
      ),
    ),
    groups_claim: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    enabled: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type SsoSettingsInput = Static<typeof SsoSettingsInput>;

export const SsoSettingsView = Type.Object({
  issuer: Type.String(),
  client_id: Type.String(),
  client_secret: Type.Union([SecretRef, Type.Null()], {
    description: 'a reference, never the value',
  }),
  redirect_uri: Type.String(),
  scopes: Type.Array(Type.String()),
  groups_claim: Type.String(),
  enabled: Type.Boolean(),
  set_by: Type.Union([Type.String(), Type.Null()]),
  set_at: Type.Union([IsoTime, Type.Null()]),
});
export type SsoSettingsView = Static<typeof SsoSettingsView>;

/** The settings as stored and as the ledger records them: the secret only as a reference. */
export interface SsoSettings {
  readonly issuer: string;
  readonly client_id: string;
  readonly client_secret: { file: string } | { env: string } | null;
  readonly redirect_uri: string;
  readonly scopes: readonly string[];
  readonly groups_claim: string;
  readonly enabled: boolean;
}

export const DiscoverBody = Type.Object(
  {
    issuer: Type.String({ minLength: 1, maxLength: 2048 }),
    groups_claim: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const DiscoverReply = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String(),
  issuer: Type.Union([Type.String(), Type.Null()]),
  authorization_endpoint: Type.Union([Type.String(), Type.Null()]),
  token_endpoint: Type.Union([Type.String(), Type.Null()]),
  userinfo_endpoint: Type.Union([Type.String(), Type.Null()]),
  jwks_uri: Type.Union([Type.String(), Type.Null()]),
  scopes_supported: Type.Array(Type.String()),
  claims_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  pkce_s256: Type.Boolean({ description: 'the provider says it supports PKCE with S256' }),
  groups_claim_offered: Type.Union([Type.Boolean(), Type.Null()], {
    description:
      'claims_supported names the groups claim; null when the provider does not list its claims',
  }),
});
export type DiscoverReply = Static<typeof DiscoverReply>;

const Check = Type.Object({ name: Type.String(), ok: Type.Boolean(), detail: Type.String() });
export const TestReply = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String(),
  checks: Type.Array(Check),
});
export type TestReply = Static<typeof TestReply>;

export const GroupsQuery = Type.Object(
  { q: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);
export const GroupsReply = Type.Object({
  source: Type.Literal('sign_ins'),
  detail: Type.String(),
  groups: Type.Array(
    Type.Object({
      value: Type.String(),
      first_seen_at: IsoTime,
      last_seen_at: IsoTime,
      sign_ins: Type.Integer(),
    }),
  ),
});
export type GroupsReply = Static<typeof GroupsReply>;

export const SyncReply = Type.Object({
  metadata_refreshed: Type.Boolean(),
  groups_reread: Type.Boolean(),
  detail: Type.String(),
});
export type SyncReply = Static<typeof SyncReply>;

export const RedeemBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 1000 })),
    session_state: Type.Optional(Type.String({ maxLength: 1000 })),
    scope: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);
