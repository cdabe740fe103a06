// Offline trial codes (licence.md §3.4): `SVCT1-` + RFC 4648 base32 of payload ‖ an Ed25519
// signature by an authority key whose statement allows `trial`, over "svc-trial/1\n" ‖ payload;
// `SVCT2-` the same with an ES256 signature (P-256, r ‖ s), the variant a FIPS install takes.
// The payload names its signing kid; the statement itself is not in the code (it would treble
// its length): the install knows it from the revocation list bundled with each release (which
// carries the trial key's statement) or from the licence in force. A FIPS install refuses
// SVCT1- codes (Ed25519) and takes SVCT2- ones.
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { base32 } from '../ledger/index.js';
import {
  signBytes,
  signingInput,
  verifyBytes,
  type SignatureAlg,
  type Signer,
} from './document/envelope.js';
import { parseStrictJson } from './document/strict-json.js';
import type { KeyStatement, TrustContext } from './document/trust.js';

export const TRIAL_CODE_PREFIX = 'SVCT1-';
/** The P-256 variant (licence.md §3.4), for FIPS installs. */
export const TRIAL_CODE_P256_PREFIX = 'SVCT2-';
const PREFIX_OF: Record<SignatureAlg, string> = {
  Ed25519: TRIAL_CODE_PREFIX,
  ES256: TRIAL_CODE_P256_PREFIX,
};
export const TRIAL_CODE_FORMAT = 'svc-trial/1';
const SIG_BYTES = 64;
const MAX_CODE_CHARS = 2048;

export const TrialToken = Type.Object(
  {
    trial_id: Type.String({ minLength: 1, maxLength: 64 }),
    company_key: Type.String({ minLength: 1, maxLength: 128 }),
    days: Type.Integer({ minimum: 1, maximum: 366 }),
    issued_at: Type.String({ format: 'date-time' }),
    redeem_by: Type.String({ format: 'date-time' }),
    kid: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  },
  { additionalProperties: false },
);
export type TrialToken = Static<typeof TrialToken>;

export type TrialCodeVerdict =
  | { readonly ok: true; readonly token: TrialToken }
  | {
      readonly ok: false;
      readonly check: 'format' | 'unknown_key' | 'signature' | 'revoked_key' | 'fips' | 'expired';
      readonly detail: string;
    };

/** The signature algorithm an offline code's prefix names, or null for another code. */
function algOfCode(code: string): SignatureAlg | null {
  const upper = code.trim().toUpperCase();
  if (upper.startsWith(TRIAL_CODE_PREFIX)) return 'Ed25519';
  if (upper.startsWith(TRIAL_CODE_P256_PREFIX)) return 'ES256';
  return null;
}

export const isOfflineTrialCode = (code: string): boolean => algOfCode(code) !== null;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (case, spaces and dashes ignored), or null. */
export function decodeBase32(text: string): Buffer | null {
  const clean = text.toUpperCase().replace(/[\s-]/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return null;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The code for `token`, signed by `signer` (the authority's side; tests use it). */
export function encodeTrialCode(token: TrialToken, signer: Signer): string {
  const payload = Buffer.from(JSON.stringify(token), 'utf8');
  const sig = Buffer.from(signBytes(signer, signingInput(TRIAL_CODE_FORMAT, payload)), 'base64url');
  return `${PREFIX_OF[signer.alg]}${base32(Buffer.concat([payload, sig]))}`;
}

/** Verifies an `SVCT1-` or `SVCT2-` code against the statements this install knows, at effective time. */
export function openTrialCode(
  code: string,
  statements: readonly KeyStatement[],
  ctx: TrustContext,
  nowMs: number,
): TrialCodeVerdict {
  const fail = (check: Exclude<TrialCodeVerdict, { ok: true }>['check'], detail: string) =>
    ({ ok: false, check, detail }) as const;
  const text = code.trim();
  if (text.length > MAX_CODE_CHARS) return fail('format', 'the code is too long');
  const alg = algOfCode(text);
  if (alg === null)
    return fail(
      'format',
      `an offline code starts ${TRIAL_CODE_PREFIX} or ${TRIAL_CODE_P256_PREFIX}`,
    );
  const raw = decodeBase32(text.slice(PREFIX_OF[alg].length));
  if (raw === null || raw.length <= SIG_BYTES)
    return fail('format', 'the code is not base32 of a payload and a signature');
  const payload = raw.subarray(0, raw.length - SIG_BYTES);
  const sig = raw.subarray(raw.length - SIG_BYTES);
  let token: unknown;
  try {
    token = parseStrictJson(payload.toString('utf8'), 4096);
  } catch (err) {
    return fail('format', `the code's payload: ${(err as Error).message}`);
  }
  if (!Value.Check(TrialToken, token)) return fail('format', "the code's payload is not a trial");
  if (ctx.fips && alg !== 'ES256')
    return fail(
      'fips',
      `SVC_FIPS=1 accepts no Ed25519 trial code: ask for the ${TRIAL_CODE_P256_PREFIX} variant, or redeem a short code online`,
    );
  const st = statements.find((s) => s.kid === token.kid && s.alg === alg);
  if (st === undefined)
    return fail(
      'unknown_key',
      `the code was signed by key ${token.kid}, which this install does not know: redeem it online, or update the service (its revocation list names newer trial keys)`,
    );
  if (
    !verifyBytes(alg, st.key, signingInput(TRIAL_CODE_FORMAT, payload), sig.toString('base64url'))
  )
    return fail('signature', `the signature of key ${token.kid} does not verify`);
  if (ctx.revokedKids.has(st.kid)) return fail('revoked_key', `key ${st.kid} has been revoked`);
  const issued = Date.parse(token.issued_at);
  if (
    !st.usage.includes('trial') ||
    issued < Date.parse(st.not_before) ||
    issued > Date.parse(st.not_after)
  )
    return fail('unknown_key', `key ${st.kid} may not issue trial codes at ${token.issued_at}`);
  if (nowMs > Date.parse(token.redeem_by))
    return fail('expired', `the code had to be redeemed by ${token.redeem_by}`);
  return { ok: true, token };
}
