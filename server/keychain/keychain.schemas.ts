import { Type, type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);
const Label = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' });

export const HomeBody = Type.Object({ label: Label }, { additionalProperties: false });

export const SiteKeysBody = Type.Object(
  {
    labels: Type.Array(Label, { minItems: 1, maxItems: 20 }),
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    licence: Type.Optional(
      Type.Boolean({ description: 'the enrolled site takes a seat on the licence' }),
    ),
    hours: Type.Optional(Type.Integer({ description: 'lifetime, 1 to 168 (default 24)' })),
  },
  { additionalProperties: false },
);
export type SiteKeysBody = Static<typeof SiteKeysBody>;

const Fingerprint = Type.String({
  pattern: '^[A-Z2-7]{52}$',
  description: 'a full install key fingerprint',
});

export const MemberBody = Type.Object(
  { fingerprint: Fingerprint },
  { additionalProperties: false },
);

export const RenameBody = Type.Object(
  { label: Label, fingerprint: Type.Optional(Fingerprint) },
  { additionalProperties: false },
);

export const RevokeBody = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 16 }) },
  { additionalProperties: false },
);

export const SiteKeysCreated = Type.Object({
  keys: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      key: Type.String({ description: 'shown once; usable once' }),
      expires_at: Type.String(),
    }),
  ),
});
export type SiteKeysCreated = Static<typeof SiteKeysCreated>;

export const KeychainView = Type.Object({
  role: Type.Union([Type.Literal('none'), Type.Literal('home'), Type.Literal('member')]),
  fingerprint: Type.String({ description: "this install's key fingerprint, in full" }),
  keychain_id: Nullable(Type.String()),
  label: Nullable(Type.String()),
  epoch: Nullable(Type.Integer()),
  head: Nullable(Type.String()),
  home_fp: Nullable(Type.String()),
  since: Nullable(Type.String()),
  carried: Type.Array(Type.String()),
  skip: Type.Array(Type.String(), { description: 'on the home: parts it does not carry' }),
  owned: Type.Array(Type.String(), { description: 'on a member: parts it keeps its own copy of' }),
  parts: Type.Array(Type.String()),
  members: Type.Array(
    Type.Object({
      label: Type.String(),
      fingerprint: Type.String(),
      fp_short: Type.String(),
      role: Type.String(),
      this: Type.Boolean(),
      health: Type.String(),
      quiet_s: Type.Integer(),
      via: Type.String(),
      address: Nullable(Type.String()),
      added_at: Type.String(),
      licensed: Type.Boolean({
        description: 'holds a licence seat (one paired by code waits for joins/approve)',
      }),
    }),
  ),
  site_keys: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      purpose: Type.String(),
      licence: Type.Boolean(),
      status: Type.String(),
      created_at: Type.String(),
      expires_at: Type.String(),
      used_by: Nullable(Type.String()),
      failed_attempts: Type.Integer(),
    }),
  ),
  pairing: Nullable(
    Type.Object(
      {
        window: Nullable(
          Type.Object({ id: Type.String(), open: Type.Boolean(), expires_at: Type.String() }),
        ),
        requests: Type.Array(
          Type.Object({
            request_id: Type.String(),
            fingerprint: Type.String(),
            fp_short: Type.String(),
            label: Type.String(),
            address: Nullable(Type.String()),
            state: Type.String({ description: 'open, added, failed, cancelled or expired' }),
            code: Nullable(
              Type.String({ description: 'six digits: type it on the joining install' }),
            ),
            home_confirmed: Type.Boolean(),
            joiner_confirmed: Type.Boolean(),
            expires_at: Type.String(),
          }),
        ),
      },
      { description: 'on the home: the pairing window and the installs asking to join' },
    ),
  ),
  handover: Nullable(
    Type.Object(
      {
        offer_id: Type.String(),
        to: Type.String({ description: 'the member the home is offered to' }),
        state: Type.String({
          description: 'open, accepted, cancelled or expired; offered on the member',
        }),
        reason: Nullable(Type.String()),
        code: Nullable(
          Type.String({ description: 'on the home, while open: type it on the member' }),
        ),
        expires_at: Type.String(),
      },
      { description: 'a handover offered by the home, as each side sees it' },
    ),
  ),
  joining: Nullable(
    Type.Object(
      {
        request_id: Type.String(),
        state: Type.String(),
        reason: Nullable(Type.String()),
        code: Nullable(Type.String({ description: 'six digits: type it on the home' })),
        home: Type.Object({
          fingerprint: Type.String(),
          fp_short: Type.String(),
          label: Type.String(),
        }),
        address: Nullable(Type.String()),
        confirmed: Type.Boolean({ description: "the home's code was typed here" }),
        expires_at: Type.String(),
      },
      { description: 'on an install pairing with a home: its request and the code' },
    ),
  ),
});
export type KeychainView = Static<typeof KeychainView>;

const Code = Type.String({
  pattern: '^[0-9 -]{6,9}$',
  description: 'the six digits the other install shows',
});

export const JoinBody = Type.Object(
  {
    address: Type.String({
      minLength: 8,
      maxLength: 255,
      pattern: '^https?://',
      description: "the home's URL, http(s)://host:port",
    }),
    label: Label,
  },
  { additionalProperties: false },
);

export const CodeBody = Type.Object({ code: Code }, { additionalProperties: false });

export const MemberCodeBody = Type.Object(
  { fingerprint: Fingerprint, code: Code },
  { additionalProperties: false },
);

export const ApproveBody = Type.Object(
  {
    request: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'the pairing request id (pr_…), or the id of the site key it joined with',
    }),
  },
  { additionalProperties: false },
);

const Passphrase = Type.String({ minLength: 1, maxLength: 1024 });

export const SealBody = Type.Object({ passphrase: Passphrase }, { additionalProperties: false });

export const SealedAnswer = Type.Object({
  file: Type.String({ description: 'the sealed file: save it as it is' }),
  keychain_id: Type.String(),
  content_version: Type.Integer(),
  parts: Type.Array(Type.String()),
  sha256: Type.String(),
});
export type SealedAnswer = Static<typeof SealedAnswer>;

export const UnsealBody = Type.Object(
  { file: Type.String({ minLength: 1, maxLength: 8 * 1024 * 1024 }), passphrase: Passphrase },
  { additionalProperties: false },
);

export const UnsealAnswer = Type.Object({
  applied: Type.Array(Type.String()),
  left: Type.Array(Type.String(), {
    description: "parts this member's home carries: the home wins",
  }),
  content_version: Type.Integer(),
  skipped: Type.Union([Type.String(), Type.Null()]),
});
export type UnsealAnswer = Static<typeof UnsealAnswer>;

export const ScopeBody = Type.Object(
  { skip: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 }) },
  { additionalProperties: false },
);

export const OwnBody = Type.Object(
  { part: Type.String({ maxLength: 32 }), own: Type.Boolean() },
  { additionalProperties: false },
);
