// The exchange's online legs (licence.md §3.7): E, when it can reach the licence authority,
// hands a vouched request to it as a forward bundle (POST /v1/installs/forward) and gets the
// next serial listing N at once, or `pending` while a person at the vendor decides; N polls
// the authority for its request (POST /v1/installs/poll) and gets that serial once it exists.
// Any failure to reach the authority is an answer too: the caller falls back to the offline way.
import type {
  AuthorityResponse,
  AuthorityTransportSettings,
  postToAuthority,
} from '../authority-transport.js';
import type { KeyObject } from 'node:crypto';
import type { CheckMode } from '../check-mode.js';
import { kidOf, signBytes, signingInput } from '../document/envelope.js';

export const POLL_FORMAT = 'svc-install-poll/1';
export const REMOVE_FORMAT = 'svc-install-remove/1';

export interface AuthorityLink {
  /** the confirmation mode in force: offline means never call */
  readonly mode: () => CheckMode;
  /** SVC_AUTHORITY_URL (or the licence's own authority) with pins, CA bundle and proxy */
  readonly transport: () => AuthorityTransportSettings | null;
  readonly post: typeof postToAuthority;
}

export type AuthorityVerdict =
  | { readonly kind: 'granted'; readonly licence: string; readonly why: string }
  | { readonly kind: 'pending'; readonly why: string }
  | { readonly kind: 'unknown'; readonly why: string }
  /** the authority answered and said no (a 4xx): not a reason to decide offline instead */
  | { readonly kind: 'refused'; readonly why: string }
  | { readonly kind: 'unreachable'; readonly why: string };

/** Whether this install may ask the authority now. */
export function online(link: AuthorityLink | undefined): boolean {
  return link !== undefined && link.mode() !== 'offline' && link.transport() !== null;
}

function verdictOf(r: AuthorityResponse): AuthorityVerdict {
  if (!r.ok) return { kind: 'unreachable', why: `${r.result}: ${r.detail}` };
  const body = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as Record<
    string,
    unknown
  >;
  const why = typeof body['why'] === 'string' ? body['why'] : '';
  if (r.status !== 200) {
    const said = `the authority answered ${String(r.status)}${why === '' ? '' : `: ${why}`}`;
    // A server error is the authority failing; a 4xx is its answer.
    return r.status >= 500 ? { kind: 'unreachable', why: said } : { kind: 'refused', why: said };
  }
  const status = body['status'];
  if (status === 'granted' && typeof body['licence'] === 'object' && body['licence'] !== null)
    return {
      kind: 'granted',
      licence: JSON.stringify(body['licence']),
      why: why === '' ? 'the licence authority added the install' : why,
    };
  if (status === 'pending')
    return { kind: 'pending', why: why === '' ? 'the licence authority must approve' : why };
  if (status === 'unknown')
    return { kind: 'unknown', why: why === '' ? 'the authority knows no such request' : why };
  return { kind: 'unreachable', why: 'the authority’s answer was not understood' };
}

/** E: the forward bundle to the authority. */
export async function forwardToAuthority(
  link: AuthorityLink,
  forward: string,
): Promise<AuthorityVerdict> {
  const t = link.transport();
  if (t === null) return { kind: 'unreachable', why: 'no licence authority is configured' };
  return verdictOf(await link.post(t, '/v1/installs/forward', { forward }));
}

/** N: where its request stands at the authority, signed with N's install key (§3.7 step 4). */
export async function pollAuthority(
  link: AuthorityLink,
  installKey: KeyObject,
  request: { req_id: string; fingerprint: string; install_pub: string; nonce: string },
): Promise<AuthorityVerdict> {
  const t = link.transport();
  if (t === null) return { kind: 'unreachable', why: 'no licence authority is configured' };
  return verdictOf(
    await link.post(t, '/v1/installs/poll', signed(POLL_FORMAT, installKey, request)),
  );
}

/** `{payload, sig}`: the JSON bytes (base64url) and the install key's Ed25519 signature. */
function signed(format: string, key: KeyObject, body: object): { payload: string; sig: string } {
  const bytes = Buffer.from(JSON.stringify({ format, ...body }), 'utf8');
  const sig = signBytes({ alg: 'Ed25519', kid: kidOf(key), key }, signingInput(format, bytes));
  return { payload: bytes.toString('base64url'), sig };
}

/**
 * E: a removal, signed with E's install key (the authority checks it against the key the
 * licence lists for `removed_by`), so no one else can take a seat away at the vendor.
 */
export async function removeAtAuthority(
  link: AuthorityLink,
  installKey: KeyObject,
  removal: {
    licence_id: string;
    licence_serial: number;
    fingerprint: string;
    removed_by: string;
    removed_at: string;
  },
): Promise<AuthorityVerdict> {
  const t = link.transport();
  if (t === null) return { kind: 'unreachable', why: 'no licence authority is configured' };
  return verdictOf(
    await link.post(t, '/v1/installs/remove', signed(REMOVE_FORMAT, installKey, removal)),
  );
}
