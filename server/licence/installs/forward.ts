// The manual forward bundle (svc-install-forward/1, licence.md §3.7): when E can neither grant
// offline nor reach the authority, it countersigns N's request, as pasted, for an admin to upload
// at the vendor portal. E's signature (its install key, listed on the licence) says which
// licensed install vouches for the request; N's own signature stays inside, checked again.
import type { KeyObject } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { kidOf, signBytes, signingInput, verifyBytes } from '../document/envelope.js';
import type { LicencePayload } from '../document/licence-doc.js';
import { MAX_ARMOUR_BYTES, payloadJson, readArmour, writeArmour } from './armour.js';
import { installKeyFromPub } from './install-pub.js';
import { armourRequest, headersAgree, parseRequest, type SignedRequest } from './request.js';

export const FORWARD_FORMAT = 'svc-install-forward/1';
/** A forward holds a whole request text (up to 64 KiB) JSON-escaped and base64url-expanded. */
export const MAX_FORWARD_ARMOUR_BYTES = 2 * MAX_ARMOUR_BYTES;

export const ForwardPayload = Type.Object(
  {
    format: Type.Literal(FORWARD_FORMAT),
    /** N's request, armoured again as N wrote it (a pasted copy may carry a mail client's mess) */
    request: Type.String({ maxLength: MAX_ARMOUR_BYTES }),
    req_id: Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' }),
    fingerprint: Type.String({ maxLength: 64 }),
    licence_id: Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' }),
    licence_serial: Type.Integer({ minimum: 1 }),
    forwarded_by: Type.String({ maxLength: 64 }),
    forwarded_at: Type.String({ format: 'date-time', maxLength: 40 }),
    why: Type.String({ maxLength: 500 }),
  },
  { additionalProperties: false },
);
export type ForwardPayload = Static<typeof ForwardPayload>;

function forwardHeaders(f: ForwardPayload): [string, string][] {
  return [
    ['Fingerprint', f.fingerprint],
    ['Forwarded-By', f.forwarded_by],
    ['Licence', f.licence_id],
  ];
}

export interface NewForward {
  /** N's request as E verified it (look held) */
  readonly request: SignedRequest;
  readonly licence: LicencePayload;
  /** E's install key (Ed25519, private) and fingerprint */
  readonly installKey: KeyObject;
  readonly thisFingerprint: string;
  readonly why: string;
  readonly now: number;
}

/** Countersigns N's request for the vendor; the text is what vouch answers with `manual`. */
export function buildForward(input: NewForward): { payload: ForwardPayload; text: string } {
  const payload: ForwardPayload = {
    format: FORWARD_FORMAT,
    request: armourRequest(input.request),
    req_id: input.request.payload.req_id,
    fingerprint: input.request.payload.fingerprint,
    licence_id: input.licence.licence_id,
    licence_serial: input.licence.serial,
    forwarded_by: input.thisFingerprint,
    forwarded_at: new Date(input.now).toISOString(),
    why: input.why.slice(0, 500),
  };
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  const sig = signBytes(
    { alg: 'Ed25519', kid: kidOf(input.installKey), key: input.installKey },
    signingInput(FORWARD_FORMAT, bytes),
  );
  const text = writeArmour({
    label: 'SVC INSTALL FORWARD',
    headers: forwardHeaders(payload),
    payload: bytes,
    sig,
  });
  return { payload, text };
}

export type ForwardRead =
  | { readonly ok: true; readonly forward: ForwardPayload; readonly request: SignedRequest }
  | {
      readonly ok: false;
      readonly reason:
        'armour' | 'format' | 'not_on_licence' | 'signature' | 'headers_match_payload' | 'request';
      readonly detail: string;
    };

/**
 * Reads a forward bundle as the vendor (or the test authority) does: E must be on `licence`
 * (the authority's copy) and have signed it; N's request inside must verify and match.
 */
export function readForward(text: unknown, licence: LicencePayload): ForwardRead {
  // The inner request sits JSON-escaped and base64url-expanded inside the outer text.
  const read = readArmour(text, {
    label: 'SVC INSTALL FORWARD',
    maxBytes: MAX_FORWARD_ARMOUR_BYTES,
  });
  if (!read.ok) return { ok: false, reason: 'armour', detail: read.reason };
  const a = read.armoured;
  const json = payloadJson(a.payload);
  if (!json.ok) return { ok: false, reason: 'format', detail: json.reason };
  if (!Value.Check(ForwardPayload, json.value)) {
    return { ok: false, reason: 'format', detail: `not a ${FORWARD_FORMAT} payload` };
  }
  const f = json.value;
  if (f.licence_id !== licence.licence_id) {
    return { ok: false, reason: 'not_on_licence', detail: `forwarded for ${f.licence_id}` };
  }
  const by = licence.installs.find((i) => i.fingerprint === f.forwarded_by);
  if (by === undefined) {
    return { ok: false, reason: 'not_on_licence', detail: `${f.forwarded_by} is not listed` };
  }
  const key = installKeyFromPub(by.install_pub);
  if (
    key === null ||
    !verifyBytes('Ed25519', key, signingInput(FORWARD_FORMAT, a.payload), a.sig)
  ) {
    return { ok: false, reason: 'signature', detail: `the signature is not ${f.forwarded_by}'s` };
  }
  const headers = headersAgree(a.headers, forwardHeaders(f));
  if (!headers.ok) {
    return { ok: false, reason: 'headers_match_payload', detail: headers.detail ?? 'differ' };
  }
  const inner = parseRequest(f.request);
  if (!inner.ok) return { ok: false, reason: 'request', detail: `${inner.check}: ${inner.detail}` };
  const r = inner.request.payload;
  if (r.req_id !== f.req_id || r.fingerprint !== f.fingerprint) {
    return { ok: false, reason: 'request', detail: 'the request inside is not the one named' };
  }
  return { ok: true, forward: f, request: inner.request };
}
