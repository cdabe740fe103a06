// The licence document (format svc-licence/1, licence.md §3.3): its payload fields and the one
// verifier every source uses (a mounted file, POST /v1/licence, a confirmation, a grant,
// svc-core licence-verify), so a licence is accepted or refused the same way wherever it came from.
import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Envelope } from './envelope.js';
import { openEnvelope, type DocumentCheck, type KeyStatement, type TrustContext } from './trust.js';

export const LICENCE_FORMAT = 'svc-licence/1';
export const TIERS = ['starter', 'enterprise', 'strategic', 'trial'] as const;
export type Tier = (typeof TIERS)[number];
export const INSTALL_ROLES = ['production', 'dr', 'standby', 'lab'] as const;
export type InstallRole = (typeof INSTALL_ROLES)[number];
export const CHECK_MODES = ['offline', 'auto', 'strict'] as const;

const Iso = Type.String({ format: 'date-time' });

export const LicenceInstall = Type.Object({
  // The install fingerprint as server/install/fingerprint.ts has always written it.
  fingerprint: Type.String({ pattern: '^[A-Z2-7]{4}(-[A-Z2-7]{4}){5}$' }),
  install_pub: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
  label: Type.String({ maxLength: 100 }),
  role: Type.Union([
    Type.Literal('production'),
    Type.Literal('dr'),
    Type.Literal('standby'),
    Type.Literal('lab'),
  ]),
  added_at: Iso,
  via: Type.Union([Type.Literal('authority'), Type.Literal('vouch'), Type.Literal('redeem')]),
});
export type LicenceInstall = Static<typeof LicenceInstall>;

export const LicencePayload = Type.Object({
  licence_id: Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' }),
  serial: Type.Integer({ minimum: 1 }),
  issued_at: Iso,
  not_before: Iso,
  expires_at: Type.Union([Iso, Type.Null()]),
  grace_days: Type.Integer({ minimum: 0, maximum: 365 }),
  warn_days: Type.Array(Type.Integer({ minimum: 0, maximum: 365 }), { maxItems: 8 }),
  customer: Type.Object({
    id: Type.String({ maxLength: 100 }),
    name: Type.String({ maxLength: 200 }),
  }),
  tier: Type.Union([
    Type.Literal('starter'),
    Type.Literal('enterprise'),
    Type.Literal('strategic'),
    Type.Literal('trial'),
  ]),
  limits: Type.Object({
    services: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    installs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  }),
  site: Type.Union([Type.Object({ name: Type.String({ maxLength: 200 }) }), Type.Null()]),
  installs: Type.Array(LicenceInstall, { maxItems: 1000 }),
  features: Type.Object({
    keychain: Type.Boolean(),
    packs: Type.Union([
      Type.Literal('*'),
      Type.Array(Type.String({ maxLength: 100 }), { maxItems: 500 }),
    ]),
  }),
  vouch: Type.Object({
    self_service: Type.Integer({ minimum: 0 }),
    grant_days: Type.Integer({ minimum: 1, maximum: 3650 }),
  }),
  check: Type.Optional(
    Type.Object({
      min_mode: Type.Union([Type.Literal('offline'), Type.Literal('auto'), Type.Literal('strict')]),
      max_unconfirmed_days: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    }),
  ),
  trial: Type.Optional(
    Type.Object({ trial_id: Type.String(), company_key: Type.String(), verified: Type.Boolean() }),
  ),
  authority: Type.Optional(
    Type.Object({ url: Type.String(), pins: Type.Array(Type.String(), { maxItems: 8 }) }),
  ),
  min_revocations_seq: Type.Integer({ minimum: 0 }),
});
export type LicencePayload = Static<typeof LicencePayload>;

export interface VerifiedLicence {
  readonly licence: LicencePayload;
  readonly envelope: Envelope;
  /** SHA-256 hex of the payload bytes: what the ledger records instead of the text */
  readonly sha256: string;
  readonly signedBy: readonly { readonly kid: string; readonly alg: string }[];
  readonly statements: readonly KeyStatement[];
}

export type LicenceVerdict =
  | ({ readonly ok: true } & VerifiedLicence)
  | { readonly ok: false; readonly check: DocumentCheck; readonly detail: string };

/** Verifies a licence envelope (text or parsed) against the build's trust. */
export function verifyLicence(input: unknown, ctx: TrustContext): LicenceVerdict {
  const opened = openEnvelope(input, { format: LICENCE_FORMAT, usage: 'licence' }, ctx);
  if (!opened.ok) return opened;
  if (!Value.Check(LicencePayload, opened.payload)) {
    const first = Value.Errors(LicencePayload, opened.payload)[0];
    const where =
      first === undefined
        ? ''
        : `${first.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'payload'}: `;
    return { ok: false, check: 'payload', detail: `${where}${first?.message ?? 'not a licence'}` };
  }
  const licence = opened.payload;
  if (
    licence.expires_at !== null &&
    Date.parse(licence.expires_at) <= Date.parse(licence.not_before)
  ) {
    return { ok: false, check: 'payload', detail: 'expires_at: before not_before' };
  }
  return {
    ok: true,
    licence,
    envelope: opened.envelope,
    sha256: createHash('sha256').update(opened.payloadBytes).digest('hex'),
    signedBy: opened.signedBy,
    statements: opened.statements,
  };
}
