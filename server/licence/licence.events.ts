// The events licence appends (licence.md §3.11). Every licence.* type is a security event for
// syslog (server/syslog/select.ts).
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);
const Source = Type.Union([
  Type.Literal('file'),
  Type.Literal('api'),
  Type.Literal('redeem'),
  Type.Literal('grant'),
  Type.Literal('authority'),
]);
const Headline = {
  source: Source,
  licence_id: Type.String(),
  serial: Type.Integer(),
  sha256: Type.String(),
  tier: Type.String(),
  customer: Type.String(),
  expires_at: Nullable(Type.String()),
};

export const licenceEvents = {
  'licence.trial_started': Type.Object({
    tier: Type.String(),
    services: Type.Number(),
    install_limit: Type.Number(),
    days: Type.Number(),
    grace_days: Type.Number(),
    expires_at: Type.String(),
    fingerprint: Type.Union([Type.String(), Type.Null()]),
  }),
  'licence.installed': Type.Object(Headline),
  'licence.replaced': Type.Object({
    ...Headline,
    previous: Type.Object({
      licence_id: Type.String(),
      serial: Type.Integer(),
      sha256: Type.String(),
    }),
    acknowledged_losses: Type.Array(Type.String()),
  }),
  'licence.removed': Type.Object({ licence_id: Type.String(), serial: Type.Integer() }),
  'licence.refused': Type.Object({
    source: Source,
    check: Type.String(),
    detail: Type.String(),
    sha256: Nullable(Type.String()),
  }),
  'licence.mode_changed': Type.Object({
    from: Type.String(),
    to: Type.String(),
    why: Type.String(),
  }),
  'licence.expiring': Type.Object({ licence_id: Type.String(), days: Type.Integer() }),
  'licence.grace_entered': Type.Object({ licence_id: Type.String(), grace_ends_at: Type.String() }),
  'licence.lapsed': Type.Object({ licence_id: Type.String() }),
  'licence.revoked': Type.Object({ licence_id: Type.String(), seq: Type.Integer() }),
  'licence.superseded': Type.Object({
    licence_id: Type.String(),
    serial: Type.Integer(),
    below_serial: Type.Integer(),
    valid_until: Type.String(),
  }),
  'licence.revocations_updated': Type.Object({
    seq: Type.Integer(),
    from_seq: Type.Integer(),
    source: Type.String(),
  }),
  'licence.revocations_rollback_ignored': Type.Object({
    seq: Type.Integer(),
    held: Type.Integer(),
    source: Type.String(),
  }),
  'licence.install.moved': Type.Object({
    from: Type.String(),
    to: Type.String(),
    source: Type.String(),
  }),
  // The install exchange (§3.7). On N: asked, grant_accepted, polled. On E: looked, vouched,
  // code_mismatch, request_burned, removed.
  'licence.install.asked': Type.Object({
    req_id: Type.String(),
    purpose: Type.String(),
    label: Nullable(Type.String()),
    fingerprint: Type.String(),
    /** the request's nonce and N's key: what a grant must answer */
    nonce: Type.String(),
    install_pub: Type.String(),
    licence_id: Nullable(Type.String()),
    /** the 6 digits (not a secret: anyone holding the text can compute them) */
    code: Type.String(),
    expires_at: Type.String(),
  }),
  'licence.install.looked': Type.Object({
    /** null when the text could not be read as a request */
    req_id: Nullable(Type.String()),
    fingerprint: Nullable(Type.String()),
    /** what a vouch would do: granted, pending, manual or refused */
    result: Type.String(),
    why: Type.String(),
  }),
  'licence.install.vouched': Type.Object({
    req_id: Type.String(),
    fingerprint: Type.String(),
    purpose: Type.String(),
    label: Nullable(Type.String()),
    /** granted, pending or manual */
    result: Type.String(),
    why: Type.String(),
    /** grant (offline, signed here), authority or forward */
    via: Type.String(),
    role: Nullable(Type.String()),
    licence_id: Type.String(),
    /** an offline grant's end */
    valid_until: Nullable(Type.String()),
    expires_at: Type.String(),
    /** N's install key, which the grant is bound to (absent in events before it was kept) */
    install_pub: Type.Optional(Type.String()),
  }),
  'licence.install.code_mismatch': Type.Object({
    req_id: Type.String(),
    fingerprint: Type.String(),
    attempt: Type.Integer(),
    expires_at: Type.String(),
  }),
  'licence.install.request_burned': Type.Object({
    req_id: Type.String(),
    fingerprint: Type.String(),
    attempts: Type.Integer(),
  }),
  'licence.install.grant_accepted': Type.Object({
    req_id: Type.String(),
    /** the install the grant is for (this one when accepted) */
    fingerprint: Type.String(),
    granted_by: Type.String(),
    licence_id: Type.String(),
    licence_serial: Type.Integer(),
    role: Type.String(),
    valid_until: Type.String(),
  }),
  'licence.install.polled': Type.Object({
    req_id: Type.String(),
    /** open, granted, pending, expired, burned or refused */
    state: Type.String(),
    from: Type.String(),
  }),
  'licence.install.removed': Type.Object({
    fingerprint: Type.String(),
    licence_id: Type.String(),
    /** the serial in force: the removal holds until a later serial */
    licence_serial: Type.Integer(),
    /** on the licence, or an offline grant issued here */
    was: Type.String(),
    /** the grant's request, when `was` is grant (the vendor may withdraw it) */
    req_id: Nullable(Type.String()),
  }),
  'licence.clock_backwards': Type.Object({ by_s: Type.Integer(), hwm: Type.String() }),
  'licence.services_pinned': Type.Object({
    pinned: Type.Array(Type.String()),
    added: Type.Array(Type.String()),
    removed: Type.Array(Type.String()),
  }),
  'licence.coverage_exceeded': Type.Object({
    day: Type.String(),
    limit: Type.Integer(),
    counted: Type.Integer(),
    uncovered: Type.Integer(),
    /** the first uncovered services, by first seen (at most 50) */
    services: Type.Array(Type.String()),
  }),
  'licence.usage_exported': Type.Object({
    sha256: Type.String(),
    prev: Nullable(Type.String()),
    from: Type.String(),
    to: Type.String(),
    hashed_ids: Type.Boolean(),
  }),
  // Confirmation with the authority (§3.6): every check, whatever it found.
  'licence.check': Type.Object({
    trigger: Type.Union([Type.Literal('schedule'), Type.Literal('api'), Type.Literal('start')]),
    /** ok, revoked, superseded, unknown_install; a transport failure; or why the answer was ignored */
    result: Type.String(),
    latency_ms: Type.Integer(),
    authority_time: Nullable(Type.String()),
    /** true when the answer confirmed the licence (last_confirmed_at moves) */
    confirmed: Type.Boolean(),
    detail: Type.String(),
  }),
  'licence.pin_mismatch': Type.Object({ seen: Type.Array(Type.String()), url: Type.String() }),
  'licence.clock_reset': Type.Object({
    source: Type.Union([Type.Literal('authority'), Type.Literal('cli')]),
    from: Type.String(),
    to: Type.String(),
  }),
  // A trial code redeemed (§3.4): online codes arrive as a licence (licence.installed, source
  // redeem); an offline SVCT1- or SVCT2- code is verified here and recorded as this event.
  'licence.trial_redeemed': Type.Object({
    trial_id: Type.String(),
    company_key: Type.String(),
    kid: Type.String(),
    tier: Type.String(),
    services: Type.Integer(),
    install_limit: Type.Integer(),
    days: Type.Integer(),
    expires_at: Type.String(),
    grace_days: Type.Integer(),
    fingerprint: Nullable(Type.String()),
    verified: Type.Boolean(),
  }),
  'licence.trial_refused': Type.Object({
    why: Type.String(),
    code: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
    detail: Type.String(),
  }),
} as const;
export type LicenceEvents = EventsOf<typeof licenceEvents>;
