// The install grant (svc-install-grant/1, licence.md §3.7): E's offline word that N may run under
// E's licence until valid_until, signed by E's install key over "svc-install-grant/1\n" ‖ payload
// and armoured as SVC INSTALL GRANT with E's licence envelope attached (`.licence=`), so N can
// check E against a licence the authority signed. N accepts it only when the seven conditions
// of §3.7 hold, checked in that order; each refusal is named.
import type { KeyObject } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import {
  kidOf,
  signBytes,
  signingInput,
  verifyBytes,
  type Envelope,
} from '../document/envelope.js';
import {
  verifyLicence,
  type InstallRole,
  type LicencePayload,
  type VerifiedLicence,
} from '../document/licence-doc.js';
import { revocationOf, type RevocationList } from '../document/revocations-doc.js';
import type { TrustContext } from '../document/trust.js';
import { MAX_GRANT_ARMOUR_BYTES, payloadJson, readArmour, writeArmour } from './armour.js';
import { installKeyFromPub } from './install-pub.js';
import { seatsUsed } from './look.js';
import { headersAgree, type Purpose, type RequestPayload } from './request.js';

export const GRANT_FORMAT = 'svc-install-grant/1';
const DAY_MS = 86_400_000;

const Ulid = Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' });
const Iso = Type.String({ format: 'date-time', maxLength: 40 });

export const GrantPayload = Type.Object(
  {
    format: Type.Literal(GRANT_FORMAT),
    req_id: Ulid,
    nonce: Type.String({ pattern: '^[A-Za-z0-9_-]{22}$' }),
    fingerprint: Type.String({ maxLength: 64 }),
    install_pub: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    role: Type.Union([
      Type.Literal('production'),
      Type.Literal('dr'),
      Type.Literal('standby'),
      Type.Literal('lab'),
    ]),
    licence_id: Ulid,
    licence_serial: Type.Integer({ minimum: 1 }),
    granted_by: Type.String({ maxLength: 64 }),
    granted_at: Iso,
    valid_until: Iso,
    seat: Type.String({ maxLength: 32 }),
    revocations_seq: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type GrantPayload = Static<typeof GrantPayload>;

/** The role a request's purpose asks for, when the admin names none. */
export function roleFor(purpose: Purpose): InstallRole {
  return purpose === 'dr' ? 'dr' : 'production';
}

export interface NewGrant {
  /** N's verified request (look held and decided `granted` by an offline grant) */
  readonly request: RequestPayload;
  /** E's licence and the envelope it came in, attached for N */
  readonly licence: LicencePayload;
  readonly envelope: Envelope;
  /** E's install key (Ed25519, private) */
  readonly installKey: KeyObject;
  /** E's fingerprint */
  readonly thisFingerprint: string;
  /** E's outstanding grants before this one */
  readonly grantsIssued: number;
  readonly revocationsSeq: number;
  /** E's revocation list as signed, attached so N learns it (licence.md §3.9) */
  readonly revocations?: string | null;
  readonly now: number;
  readonly role?: InstallRole;
}

function grantHeaders(g: GrantPayload): [string, string][] {
  return [
    ['Fingerprint', g.fingerprint],
    ['Granted-By', g.granted_by],
    ['Valid-Until', g.valid_until],
  ];
}

/** The longest a grant may run: min(licence expiry, granted_at + vouch.grant_days). */
export function grantLimit(licence: LicencePayload, grantedAt: number): number {
  const byDays = grantedAt + licence.vouch.grant_days * DAY_MS;
  return licence.expires_at === null ? byDays : Math.min(byDays, Date.parse(licence.expires_at));
}

/** Builds, signs and armours a grant for N's request; the text is what vouch carries back. */
export function buildGrant(input: NewGrant): { payload: GrantPayload; text: string } {
  const lic = input.licence;
  const limit = lic.limits.installs === null ? 'unlimited' : String(lic.limits.installs);
  const payload: GrantPayload = {
    format: GRANT_FORMAT,
    req_id: input.request.req_id,
    nonce: input.request.nonce,
    fingerprint: input.request.fingerprint,
    install_pub: input.request.install_pub,
    role: input.role ?? roleFor(input.request.purpose),
    licence_id: lic.licence_id,
    licence_serial: lic.serial,
    granted_by: input.thisFingerprint,
    granted_at: new Date(input.now).toISOString(),
    valid_until: new Date(grantLimit(lic, input.now)).toISOString(),
    seat: `${String(seatsUsed(lic, input.grantsIssued) + 1)}/${limit}`,
    revocations_seq: input.revocationsSeq,
  };
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const sig = signBytes(
    { alg: 'Ed25519', kid: kidOf(input.installKey), key: input.installKey },
    signingInput(GRANT_FORMAT, bytes),
  );
  const text = writeArmour({
    label: 'SVC INSTALL GRANT',
    headers: grantHeaders(payload),
    payload: bytes,
    sig,
    attachments: {
      licence: Buffer.from(JSON.stringify(input.envelope), 'utf8'),
      ...(input.revocations != null && { revocations: Buffer.from(input.revocations, 'utf8') }),
    },
  });
  return { payload, text };
}

/** What N knows when a grant is pasted. */
export interface AcceptContext {
  /** N's trust (roots, revoked kids, FIPS) for E's licence */
  readonly trust: TrustContext;
  /** N's open outgoing requests (not expired, not burned, not answered) */
  readonly openRequests: readonly Pick<
    RequestPayload,
    'req_id' | 'nonce' | 'install_pub' | 'fingerprint'
  >[];
  /** the highest serial N has seen of a licence (0 when none) */
  readonly highestSerial: (licenceId: string) => number;
  /** the revocation list in force on N */
  readonly revocations: RevocationList;
  /** fingerprints N knows were removed from the licence (licence.install.removed) */
  readonly removedInstalls: ReadonlySet<string>;
  /** effective time, ms */
  readonly now: number;
}

/** Why a grant was refused, by the condition of §3.7 that failed (0: the text itself). */
export type GrantRefusal =
  | 'armour' // 0
  | 'format' // 0
  | 'licence_invalid' // 1
  | 'licence_revoked' // 1
  | 'licence_mismatch' // 1
  | 'issuer_not_on_licence' // 2
  | 'issuer_removed' // 2
  | 'grant_signature' // 3
  | 'headers_match_payload' // 3
  | 'request_unknown' // 4
  | 'nonce_mismatch' // 4
  | 'install_key_mismatch' // 4
  | 'fingerprint_mismatch' // 4
  | 'older_serial' // 5
  | 'expired' // 6
  | 'grant_revoked' // 6
  | 'vouch_not_allowed'; // 7

export type GrantAcceptance =
  | {
      readonly ok: true;
      readonly grant: GrantPayload;
      readonly licence: VerifiedLicence;
      /** until when N runs as vouched by E */
      readonly vouchedUntil: string;
    }
  | { readonly ok: false; readonly reason: GrantRefusal; readonly detail: string };

const refuse = (reason: GrantRefusal, detail: string): GrantAcceptance => ({
  ok: false,
  reason,
  detail,
});

const readGrantArmour = (text: unknown) =>
  readArmour(text, {
    label: 'SVC INSTALL GRANT',
    attachments: ['licence', 'revocations'],
    maxBytes: MAX_GRANT_ARMOUR_BYTES,
  });

/**
 * The revocation list a grant carries, unverified (the caller offers it to the list in force,
 * which verifies it), or null. Offered before the grant is checked, so a grant the list
 * withdraws is refused.
 */
export function grantRevocations(text: unknown): string | null {
  const read = readGrantArmour(text);
  return read.ok ? (read.armoured.attachments['revocations']?.toString('utf8') ?? null) : null;
}

/** The request a grant answers, read without checking anything, or null. */
export function grantReqId(text: unknown): string | null {
  const read = readGrantArmour(text);
  if (!read.ok) return null;
  const json = payloadJson(read.armoured.payload);
  const id = json.ok ? (json.value as { req_id?: unknown } | null)?.req_id : undefined;
  return typeof id === 'string' ? id : null;
}

/** Checks a pasted grant on N; never throws. */
export function acceptGrant(text: unknown, ctx: AcceptContext): GrantAcceptance {
  const read = readGrantArmour(text);
  if (!read.ok) return refuse('armour', read.reason);
  const a = read.armoured;
  const json = payloadJson(a.payload);
  if (!json.ok) return refuse('format', json.reason);
  if (!Value.Check(GrantPayload, json.value)) {
    const first = Value.Errors(GrantPayload, json.value)[0];
    return refuse(
      'format',
      `not a ${GRANT_FORMAT} payload (${first?.instancePath ?? ''} ${first?.message ?? ''})`.trim(),
    );
  }
  const g = json.value;
  const attached = a.attachments['licence'];
  if (attached === undefined) return refuse('armour', 'no ".licence=" attached');

  // 1. the licence verifies against N's roots (and is not revoked), and is the one named
  const v = verifyLicence(attached.toString('utf8'), ctx.trust);
  if (!v.ok) return refuse('licence_invalid', `${v.check}: ${v.detail}`);
  const lic = v.licence;
  const revoked = revocationOf(ctx.revocations, lic.licence_id, lic.serial);
  if (revoked !== null) {
    return refuse('licence_revoked', `licence ${lic.licence_id} is ${revoked.reason}`);
  }
  if (g.licence_id !== lic.licence_id || g.licence_serial !== lic.serial) {
    return refuse(
      'licence_mismatch',
      `the grant names licence ${g.licence_id} serial ${String(g.licence_serial)}, the attached one is ${lic.licence_id} serial ${String(lic.serial)}`,
    );
  }
  // 2. E (fingerprint and key) is on that licence, and not removed since
  const issuer = lic.installs.find((i) => i.fingerprint === g.granted_by);
  if (issuer === undefined) {
    return refuse('issuer_not_on_licence', `${g.granted_by} is not on licence ${lic.licence_id}`);
  }
  if (ctx.removedInstalls.has(g.granted_by)) {
    return refuse('issuer_removed', `${g.granted_by} was removed from the licence`);
  }
  // 3. E's key signed it
  const key = installKeyFromPub(issuer.install_pub);
  if (key === null || !verifyBytes('Ed25519', key, signingInput(GRANT_FORMAT, a.payload), a.sig)) {
    return refuse('grant_signature', `the signature is not ${g.granted_by}'s`);
  }
  const headers = headersAgree(a.headers, grantHeaders(g));
  if (!headers.ok) return refuse('headers_match_payload', headers.detail ?? 'headers differ');
  // 4. it answers one of N's open requests
  const open = ctx.openRequests.find((r) => r.req_id === g.req_id);
  if (open === undefined) return refuse('request_unknown', `no open request ${g.req_id} here`);
  if (open.nonce !== g.nonce) return refuse('nonce_mismatch', 'the nonce is not the request’s');
  if (open.install_pub !== g.install_pub) {
    return refuse('install_key_mismatch', 'the grant is for another install key');
  }
  if (open.fingerprint !== g.fingerprint) {
    return refuse('fingerprint_mismatch', `the grant is for ${g.fingerprint}`);
  }
  // 5. no older than what N has seen
  const highest = ctx.highestSerial(lic.licence_id);
  if (lic.serial < highest) {
    return refuse(
      'older_serial',
      `licence serial ${String(lic.serial)} is older than ${String(highest)} seen here`,
    );
  }
  // 6. not expired, not withdrawn
  if (ctx.now >= Date.parse(g.valid_until)) {
    return refuse('expired', `the grant ended at ${g.valid_until}`);
  }
  const withdrawn = ctx.revocations.grants.find((r) => r.req_id === g.req_id);
  if (withdrawn !== undefined) {
    return refuse('grant_revoked', `the grant was revoked (${withdrawn.reason})`);
  }
  // 7. the licence lets installs vouch, for this long
  if (lic.trial?.verified === false) {
    return refuse('vouch_not_allowed', 'an unverified trial cannot vouch');
  }
  if (lic.site === null && lic.vouch.self_service === 0) {
    return refuse('vouch_not_allowed', 'the licence allows no offline grants (self_service 0)');
  }
  if (Date.parse(g.valid_until) > grantLimit(lic, Date.parse(g.granted_at))) {
    return refuse('vouch_not_allowed', 'valid_until is later than the licence lets a grant run');
  }
  return { ok: true, grant: g, licence: v, vouchedUntil: g.valid_until };
}
